// The flags of `ironbench validate --level burn-in` (docs/validate.md#burn-in).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

#include "validate/validation.hpp"

namespace ironbench::cli {

struct burn_in_arguments {
  std::string duration = "10m";
  std::string interval = "10s";
  double max_drop_percent = 10;
  double max_cv_percent = 5;
  std::uint64_t max_corrected = 0;
  std::vector<CLI::Option*> given;  ///< the options, to refuse them without --level burn-in
};

/// Adds --duration, --interval, --max-drop, --max-cv and --max-corrected.
void add_burn_in_options(CLI::App& command, burn_in_arguments& a);

/// Sets `s`'s burn-in fields from `a`; usage_error for a malformed value or for a burn-in flag
/// given with another level.
void apply_burn_in_options(const burn_in_arguments& a, validate::validation_settings& s);

}  // namespace ironbench::cli
