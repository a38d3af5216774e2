#include "comm/pairwise_data.hpp"

#include <cstring>

namespace ironbench::comm {
namespace {

// splitmix64: each 8-byte word of the pattern from its index and the exchange's key.
std::uint64_t pattern_mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t pattern_key(int sender, int receiver, std::uint64_t seed) {
  return pattern_mix(seed * 0x100000001b3ULL ^ (static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender)) << 32) ^
                     static_cast<std::uint32_t>(receiver));
}

}  // namespace

void fill_pair_pattern(unsigned char* data, std::size_t bytes, int sender, int receiver, std::uint64_t seed) {
  const auto key = pattern_key(sender, receiver, seed);
  for (std::size_t offset = 0, word = 0; offset < bytes; offset += 8, ++word) {
    const std::uint64_t value = pattern_mix(key ^ word);
    std::memcpy(data + offset, &value, bytes - offset < 8 ? bytes - offset : 8);
  }
}

std::int64_t count_pattern_mismatches(const unsigned char* data, std::size_t bytes, int sender, int receiver,
                                      std::uint64_t seed) {
  const auto key = pattern_key(sender, receiver, seed);
  std::int64_t wrong = 0;
  for (std::size_t offset = 0, word = 0; offset < bytes; offset += 8, ++word) {
    const std::uint64_t value = pattern_mix(key ^ word);
    unsigned char expected[8];
    std::memcpy(expected, &value, 8);
    const std::size_t n = bytes - offset < 8 ? bytes - offset : 8;
    if (std::memcmp(data + offset, expected, n) == 0) continue;
    for (std::size_t i = 0; i < n; ++i) wrong += data[offset + i] != expected[i] ? 1 : 0;
  }
  return wrong;
}

}  // namespace ironbench::comm
