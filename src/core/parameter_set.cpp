#include "core/parameter_set.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::core {

void parameter_set::set(std::string name, axis_value value) {
  for (auto& [existing, old] : entries_) {
    if (existing == name) {
      old = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(name), std::move(value));
}

const axis_value& parameter_set::at(const std::string& name) const {
  for (const auto& [existing, value] : entries_) {
    if (existing == name) return value;
  }
  throw error(fmt::format("no parameter '{}' in {}", name, label()));
}

bool parameter_set::contains(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const entry& e) { return e.first == name; });
}

std::int64_t parameter_set::integer(const std::string& name) const {
  const auto* value = std::get_if<std::int64_t>(&at(name));
  if (value == nullptr) throw error(fmt::format("parameter '{}' is not an integer", name));
  return *value;
}

double parameter_set::floating(const std::string& name) const {
  const auto& value = at(name);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  throw error(fmt::format("parameter '{}' is not a number", name));
}

const std::string& parameter_set::string(const std::string& name) const {
  const auto* value = std::get_if<std::string>(&at(name));
  if (value == nullptr) throw error(fmt::format("parameter '{}' is not a string", name));
  return *value;
}

std::string parameter_set::label() const {
  std::string text;
  for (const auto& [name, value] : entries_) {
    if (!text.empty()) text += ' ';
    text += name + '=' + to_string(value);
  }
  return text;
}

}  // namespace ironbench::core
