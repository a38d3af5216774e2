#include "serve/common/base64.hpp"

#include <cstdint>
#include <string_view>

namespace ironbench::serve {

std::string base64_encoded(const std::string& bytes) {
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t group = static_cast<unsigned char>(bytes[i]) << 16U;
    if (left > 1) group |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8U;
    if (left > 2) group |= static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(alphabet[(group >> 18U) & 63U]);
    out.push_back(alphabet[(group >> 12U) & 63U]);
    out.push_back(left > 1 ? alphabet[(group >> 6U) & 63U] : '=');
    out.push_back(left > 2 ? alphabet[group & 63U] : '=');
  }
  return out;
}

}  // namespace ironbench::serve
