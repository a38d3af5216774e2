#include "comm/straggler_report.hpp"

#include <fmt/format.h>

namespace ironbench::comm {

std::vector<timed_step> collective_steps(const std::vector<std::vector<sweep_row>>& trials) {
  std::vector<timed_step> steps;
  for (std::size_t t = 0; t < trials.size(); ++t) {
    for (const auto& row : trials[t]) {
      for (const bool in_place : {false, true}) {
        const auto& p = in_place ? row.in_place : row.out_of_place;
        if (!p.ran || p.rank_seconds.size() < 2) continue;
        steps.push_back({fmt::format("trial {} {} {} B {}", t + 1, to_string(row.c), row.bytes,
                                     in_place ? "in place" : "out of place"),
                         p.rank_seconds});
      }
    }
  }
  return steps;
}

}  // namespace ironbench::comm
