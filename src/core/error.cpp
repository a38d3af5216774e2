#include "core/error.hpp"

#include <cstring>

namespace ironbench {

std::string check_failure_message(const char* file, int line, const char* call, const std::string& detail) {
  const char* base = std::strrchr(file, '/');
  std::string message = base ? base + 1 : file;
  message += ':' + std::to_string(line) + ": " + call + " failed";
  if (!detail.empty()) message += ": " + detail;
  return message;
}

}  // namespace ironbench
