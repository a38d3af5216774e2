// The bounds of what a recipe may grow into (docs/experiments.md, "Bounds"). A recipe is a few
// kilobytes, but YAML aliases, variables that refer to each other and the matrix multiply it:
// a billion-laughs document, `a2: "${a1}${a1}"` doubling thirty times or ten variables of a
// hundred values each would fill memory. Each bound is checked while the recipe grows, before
// the memory is spent, and is a usage error (exit 2) naming the bound when reached.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/bounded_file.hpp"

namespace ironbench::experiment {

/// YAML nodes (maps, lists, scalars) of the document once its aliases are expanded. The
/// shipped recipes have at most about 500.
inline constexpr std::size_t max_document_nodes = 100'000;

/// Bytes of text (keys and scalars) of the document once its aliases are expanded.
inline constexpr std::size_t max_document_text_bytes = 4 * core::mebibyte;

/// Maps and lists inside each other, aliases expanded (a self-referring alias is caught here).
inline constexpr int max_document_depth = 64;

/// Bytes of one string once its ${variables} are expanded.
inline constexpr std::size_t max_expanded_value_bytes = core::mebibyte;

/// ${variable} references replaced while planning (every variable, tag and step of every
/// point): variables that refer to each other twice, `a2: "${a1}${a1}"`, double this at every
/// level even when their values are empty. A plan of the shipped recipes takes a few thousand.
/// Reaching 4,000,000 took 13 s of CPU under the fuzzing build's instrumentation, past
/// libFuzzer's 10-s limit for one input (a few tenths of a second in release).
inline constexpr std::size_t max_plan_expansion_references = 500'000;

/// Bytes of text produced while planning, a value used inside another counted at every level.
inline constexpr std::size_t max_plan_expansion_bytes = 256 * core::mebibyte;

/// Points of a plan: the product of the matrix variables' numbers of values.
inline constexpr std::size_t max_plan_points = 10'000;

/// The longest duration a recipe may give (a step's `timeout`, a service's ready `timeout` and
/// `stop_grace`): a week. The shipped recipes' longest is 12 h; "99999999999999999999h" is
/// finite as a double, but no deadline (steady_clock's nanoseconds overflow past 292 years).
inline constexpr double max_recipe_duration_s = 7 * 24 * 3600.0;

/// The most times a point (the recipe's `repeat`) or a step (a step's `repeat`) is measured.
inline constexpr std::int64_t max_repeat = 1000;

}  // namespace ironbench::experiment
