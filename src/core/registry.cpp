#include "core/registry.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::core {

void registry::add(std::unique_ptr<benchmark> entry) {
  IRONBENCH_CHECK(entry != nullptr, "null benchmark");
  IRONBENCH_CHECK(find(entry->name()) == nullptr, "benchmark name registered twice: " + entry->name());
  entries_.push_back(std::move(entry));
}

const benchmark* registry::find(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e->name() == name) return e.get();
  }
  return nullptr;
}

const benchmark& registry::get(const std::string& name) const {
  if (const auto* found = find(name)) return *found;
  std::vector<std::string> names;
  for (const auto& e : entries_) names.push_back(e->name());
  throw usage_error(fmt::format("unknown benchmark '{}' (known: {})", name, fmt::join(names, ", ")));
}

std::vector<const benchmark*> registry::all() const {
  std::vector<const benchmark*> list;
  for (const auto& e : entries_) list.push_back(e.get());
  return list;
}

std::vector<const benchmark*> registry::default_suite() const {
  std::vector<const benchmark*> list;
  for (const auto& e : entries_) {
    if (e->in_default_suite()) list.push_back(e.get());
  }
  return list;
}

}  // namespace ironbench::core
