#include "telemetry/shared_library.hpp"

#include <dlfcn.h>

namespace ironbench::telemetry {

shared_library::shared_library(const std::vector<std::string>& names) {
  for (const auto& name : names) {
    handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) {
      name_ = name;
      error_.clear();
      return;
    }
    const char* why = dlerror();
    if (error_.empty()) error_ = why != nullptr ? why : (name + ": cannot be opened");
  }
}

shared_library::~shared_library() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* shared_library::lookup(const char* symbol) const { return handle_ != nullptr ? dlsym(handle_, symbol) : nullptr; }

}  // namespace ironbench::telemetry
