// The rounds of a pairwise sweep: every pair of N participants measured once, in rounds of
// disjoint pairs (a round-robin tournament by the circle method), so that all N(N-1)/2 pairs
// take N-1 rounds (N even) or N rounds (N odd, one participant sitting each round out).
#pragma once

#include <utility>
#include <vector>

namespace ironbench::comm {

/// One pair of participants (indices 0..N-1), first < second.
using participant_pair = std::pair<int, int>;

/// The rounds for `participants` (>= 0): N-1 rounds of N/2 disjoint pairs for even N, N rounds
/// of (N-1)/2 pairs for odd N (each participant sits out exactly one round); no rounds for N < 2.
/// Every unordered pair appears exactly once. The same on every rank (a pure function of N).
[[nodiscard]] std::vector<std::vector<participant_pair>> pairwise_rounds(int participants);

/// The number of rounds pairwise_rounds(participants) returns.
[[nodiscard]] int pairwise_round_count(int participants);

/// Participant `who`'s partner in `round`, or -1 when it sits that round out.
[[nodiscard]] int partner_in(const std::vector<participant_pair>& round, int who);

}  // namespace ironbench::comm
