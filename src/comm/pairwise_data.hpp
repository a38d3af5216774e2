// The bytes a pairwise sweep sends: a pattern that depends on the sender, the receiver and the
// exchange, so that the receiver checks every byte it got against the exact bytes expected
// (a byte from the wrong peer, a stale buffer or a corrupted transfer is a wrong byte).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ironbench::comm {

/// Fills `bytes` of `data` with the pattern of `sender` -> `receiver` for exchange `seed`.
void fill_pair_pattern(unsigned char* data, std::size_t bytes, int sender, int receiver, std::uint64_t seed);

/// How many of the `bytes` of `data` differ from that pattern.
[[nodiscard]] std::int64_t count_pattern_mismatches(const unsigned char* data, std::size_t bytes, int sender,
                                                    int receiver, std::uint64_t seed);

}  // namespace ironbench::comm
