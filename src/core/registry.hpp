// The set of benchmarks this build knows. Filled once at start-up, read-only afterwards.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/benchmark.hpp"

namespace ironbench::core {

class registry {
 public:
  /// Adds a benchmark; throws ironbench::error when its name is taken.
  void add(std::unique_ptr<benchmark> entry);

  /// The benchmark called `name`, or nullptr.
  [[nodiscard]] const benchmark* find(const std::string& name) const;

  /// Like find, but throws usage_error listing the known names.
  [[nodiscard]] const benchmark& get(const std::string& name) const;

  [[nodiscard]] std::vector<const benchmark*> all() const;
  [[nodiscard]] std::vector<const benchmark*> default_suite() const;

 private:
  std::vector<std::unique_ptr<benchmark>> entries_;
};

}  // namespace ironbench::core
