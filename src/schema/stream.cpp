#include "schema/stream.hpp"

namespace ironbench::schema {

std::vector<std::string> stream_kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : stream_kernels) names.emplace_back(k.name);
  return names;
}

std::vector<std::string> stream_dtype_names() {
  std::vector<std::string> names;
  for (const auto& d : stream_dtypes) names.emplace_back(d.name);
  return names;
}

}  // namespace ironbench::schema
