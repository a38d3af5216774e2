// The work one rendering of a chat template may do. Bounding what a template builds (64 MiB)
// and its loop iterations (100,000) does not bound its time: 100,000 iterations of a body of a
// hundred filters, or of a 40 MB string copied at each step, or `unique` over 100,000 items,
// each take minutes. Every step of the renderer and every bulk operation counts against one
// budget, so that any template's rendering ends in about a second (a few under the sanitizers)
// with a jinja_error, while real templates use a small part of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ironbench::serve::chat {

class jinja_value;
struct jinja_args;

/// The steps one rendering may take: an expression evaluated or a statement rendered is one;
/// bulk work counts as jinja_steps_for_items / jinja_steps_for_bytes say. Real templates take
/// hundreds to tens of thousands (docs/serving-metrics.md).
inline constexpr std::int64_t jinja_max_steps = 1'000'000;

/// Steps for visiting `items` list items or dict entries (comparing, copying): one per 16.
constexpr std::int64_t jinja_steps_for_items(std::size_t items) { return static_cast<std::int64_t>(items / 16); }
/// Steps for comparing `comparisons` pairs of values (sort, unique, `in`): one per two.
constexpr std::int64_t jinja_steps_for_comparisons(std::size_t comparisons) {
  return static_cast<std::int64_t>(comparisons / 2);
}
/// Steps for copying or scanning `bytes` bytes of text: one per KiB.
constexpr std::int64_t jinja_steps_for_bytes(std::size_t bytes) { return static_cast<std::int64_t>(bytes / 1024); }

/// Counts `steps` against the rendering under way on this thread (none: nothing is counted); a
/// jinja_error once its steps pass its budget's limit.
void jinja_charge(std::int64_t steps);
/// jinja_charge for a pass over `value`: its bytes when a string, its items when a list or dict.
void jinja_charge_for(const jinja_value& value);

/// jinja_charge for applying a filter, test or method to `input` with `args`: one step and a
/// pass over each of them.
void jinja_charge_application(const jinja_value& input, const jinja_args& args);

/// One rendering's budget: steps count against it, from zero, while it lives on this thread.
class jinja_work_budget {
 public:
  /// A budget of `max_steps` (jinja_max_steps; the fuzz target renders with less, to go faster).
  explicit jinja_work_budget(std::int64_t max_steps = jinja_max_steps);
  ~jinja_work_budget();
  jinja_work_budget(const jinja_work_budget&) = delete;
  jinja_work_budget& operator=(const jinja_work_budget&) = delete;

  /// The steps taken so far.
  [[nodiscard]] std::int64_t steps() const { return steps_; }

 private:
  friend void jinja_charge(std::int64_t steps);
  /// jinja_charge for a pass over `value`: its bytes when a string, its items when a list or dict.
  void jinja_charge_for(const jinja_value& value);
  std::int64_t steps_ = 0;
  std::int64_t max_steps_;
  jinja_work_budget* outer_;  ///< the budget this one replaced on the thread (a nested rendering)
};

}  // namespace ironbench::serve::chat
