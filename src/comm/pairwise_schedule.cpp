#include "comm/pairwise_schedule.hpp"

#include <algorithm>

namespace ironbench::comm {

int pairwise_round_count(int participants) {
  if (participants < 2) return 0;
  return participants % 2 == 0 ? participants - 1 : participants;
}

std::vector<std::vector<participant_pair>> pairwise_rounds(int participants) {
  std::vector<std::vector<participant_pair>> rounds;
  if (participants < 2) return rounds;
  // The circle method: with an even count M (odd N gets a phantom M-1 = N, its partner's bye),
  // seat M-1 stays put and the others rotate one seat per round; round r pairs seat M-1 with
  // r, and r-k with r+k (mod M-1) for k = 1 .. M/2-1.
  const int m = participants % 2 == 0 ? participants : participants + 1;
  const int ring = m - 1;
  for (int r = 0; r < ring; ++r) {
    std::vector<participant_pair> round;
    const auto add = [&](int a, int b) {
      if (a >= participants || b >= participants) return;  // the phantom: a bye
      round.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(r, ring);
    for (int k = 1; k < m / 2; ++k) add((r - k + ring) % ring, (r + k) % ring);
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
  }
  return rounds;
}

int partner_in(const std::vector<participant_pair>& round, int who) {
  for (const auto& [a, b] : round) {
    if (a == who) return b;
    if (b == who) return a;
  }
  return -1;
}

}  // namespace ironbench::comm
