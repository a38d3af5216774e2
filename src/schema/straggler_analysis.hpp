// The straggler report: which rank the others wait for in a run that does finish, from every
// rank's own time of each measured step. The step ends at about the same time on every rank,
// because no rank leaves a collective before the last one has joined it, so the rank that
// arrives last spends the least time inside, and its lateness is how much less than the
// median rank:
//   lateness(r, step) = median over ranks of time(step) - time(r, step).
// No clock is compared across hosts. A rank that is the last in most steps, by a margin that is
// not noise, is named. ironbench's own collectives (comm/straggler_report.hpp) and the import
// of nccl-tests' per-process iteration times (JSON with -I 1: per_process_max_times_us,
// results/nccl_tests_import.hpp) both read their steps this way.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::schema {

/// One measured step: every rank's time inside it, in seconds (index = rank).
struct timed_step {
  std::string label;  ///< "all_reduce 1024 B in place", "iteration 3 of ..."
  std::vector<double> rank_seconds;
};

/// When a rank is named: last in at least `min_share_last` of the steps, and its median
/// lateness at least `min_lateness_ms` and at least `min_lateness_fraction` of the median
/// step's length (the longest rank's time), over at least `min_steps` steps.
struct straggler_rule {
  double min_share_last = 0.5;
  double min_lateness_ms = 0.1;
  double min_lateness_fraction = 0.1;
  std::size_t min_steps = 3;
};

/// One rank's part in the report.
struct straggler_rank {
  int rank = 0;
  std::string host;
  std::size_t steps_last = 0;     ///< steps where it arrived last (spent the least time inside)
  double share_last = 0;          ///< steps_last / steps
  double median_lateness_ms = 0;  ///< over every step (negative: it usually arrives early)
  double max_lateness_ms = 0;
  bool named = false;  ///< a straggler by the rule
};

struct straggler_report {
  std::size_t steps = 0;  ///< steps with at least two ranks' times
  int ranks = 0;
  double median_step_ms = 0;             ///< median over steps of the longest rank's time
  std::vector<straggler_rank> per_rank;  ///< every rank, in rank order
  straggler_rule rule;
};

/// The report over `steps` (steps with fewer than two ranks, or non-finite times, are left
/// out); `hosts[r]` names rank r's host where known.
[[nodiscard]] straggler_report find_stragglers(const std::vector<timed_step>& steps,
                                               const std::vector<std::string>& hosts, const straggler_rule& rule = {});

/// One line per named rank ("straggler: rank 2 (host b) arrived last in 24 of 24 steps (100%),
/// 20.1 ms late per step (median)"), or one line that names none and says why; empty when
/// there are no steps.
[[nodiscard]] std::vector<std::string> straggler_lines(const straggler_report& report);

/// As stored in a run's settings.stragglers: method, rule, steps, ranks, median_step_ms,
/// per_rank [{rank, host, steps_last, share_last, median_lateness_ms, max_lateness_ms,
/// named}], named [{rank, host, share_last, median_lateness_ms}], summary (the lines).
[[nodiscard]] json straggler_json(const straggler_report& report, const std::string& method);

}  // namespace ironbench::schema
