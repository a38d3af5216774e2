// A shared library opened with dlopen, closed on destruction, with typed symbol lookup.
#pragma once

#include <string>
#include <vector>

namespace ironbench::telemetry {

class shared_library {
 public:
  /// Opens the first of `names` that loads; loaded() tells whether one did, error() why not.
  explicit shared_library(const std::vector<std::string>& names);
  shared_library(const shared_library&) = delete;
  shared_library& operator=(const shared_library&) = delete;
  ~shared_library();

  [[nodiscard]] bool loaded() const { return handle_ != nullptr; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] const std::string& name() const { return name_; }

  /// The symbol `symbol` as a function pointer of type F, or nullptr.
  template <typename F>
  [[nodiscard]] F function(const char* symbol) const {
    return reinterpret_cast<F>(lookup(symbol));
  }

 private:
  [[nodiscard]] void* lookup(const char* symbol) const;

  void* handle_ = nullptr;
  std::string name_;
  std::string error_;
};

}  // namespace ironbench::telemetry
