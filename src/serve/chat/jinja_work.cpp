#include "serve/chat/jinja_work.hpp"

#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {
namespace {

thread_local jinja_work_budget* current_budget = nullptr;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

}  // namespace

jinja_work_budget::jinja_work_budget(std::int64_t max_steps) : max_steps_(max_steps), outer_(current_budget) {
  current_budget = this;
}

jinja_work_budget::~jinja_work_budget() { current_budget = outer_; }

void jinja_charge(std::int64_t steps) {
  if (current_budget == nullptr) return;
  current_budget->steps_ += steps;
  if (current_budget->steps_ > current_budget->max_steps_) {
    throw jinja_error("more than " + std::to_string(current_budget->max_steps_) +
                      " steps of work in one rendering (docs/serving-metrics.md: a chat template's bounds)");
  }
}

void jinja_charge_for(const jinja_value& value) {
  if (current_budget == nullptr) return;
  if (value.is_string()) jinja_charge(jinja_steps_for_bytes(value.as_string().size()));
  if (value.is_list()) jinja_charge(jinja_steps_for_items(value.as_list().size()));
  if (value.is_dict()) jinja_charge(jinja_steps_for_items(value.as_dict().items.size()));
}

void jinja_charge_application(const jinja_value& input, const jinja_args& args) {
  jinja_charge(1);
  jinja_charge_for(input);
  for (const auto& a : args.positional) jinja_charge_for(a);
  for (const auto& [name, a] : args.keyword) jinja_charge_for(a);
}

}  // namespace ironbench::serve::chat
