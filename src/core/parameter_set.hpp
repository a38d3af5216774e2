// One point of a sweep: a value for every axis of a benchmark, in declaration order.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/axis.hpp"

namespace ironbench::core {

class parameter_set {
 public:
  using entry = std::pair<std::string, axis_value>;

  void set(std::string name, axis_value value);

  /// The value of axis `name`; throws ironbench::error when the axis is absent or of
  /// another kind (a benchmark asking for an axis it did not declare is a bug).
  [[nodiscard]] const axis_value& at(const std::string& name) const;
  [[nodiscard]] std::int64_t integer(const std::string& name) const;
  [[nodiscard]] double floating(const std::string& name) const;
  [[nodiscard]] const std::string& string(const std::string& name) const;
  [[nodiscard]] bool contains(const std::string& name) const;

  [[nodiscard]] const std::vector<entry>& entries() const { return entries_; }

  /// "M=4096 N=4096 dtype=fp32": stable, used in progress lines and messages.
  [[nodiscard]] std::string label() const;

  friend bool operator==(const parameter_set&, const parameter_set&) = default;

 private:
  std::vector<entry> entries_;
};

}  // namespace ironbench::core
