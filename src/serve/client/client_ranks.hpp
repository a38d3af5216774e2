// A load spread over several client processes (mpirun or srun, on one machine or many): each
// rank sends its share of one schedule with its share of the concurrency, and rank 0 merges
// every rank's requests into one point, so percentiles are computed over all samples (never
// averaged over ranks). The group's operations come from outside (MPI in the CLI), so this
// library needs no MPI.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/client/load_generator.hpp"

namespace ironbench::serve {

/// This process's place among the client ranks and what the sweep needs from the group.
struct client_ranks {
  int rank = 0;
  int size = 1;
  std::function<void()> barrier;                                       ///< every rank waits for all
  std::function<std::vector<std::string>(const std::string&)> gather;  ///< every rank's text at rank 0
  std::function<double(double)> sum;                                   ///< over every rank, on every rank

  [[nodiscard]] bool several() const { return size > 1; }
  /// Rank 0's `flag`, on every rank (every rank must call it, in the same order).
  [[nodiscard]] bool rank0_says(bool flag) const;
  /// Whether `flag` is true on any rank, on every rank (likewise).
  [[nodiscard]] bool any(bool flag) const;
};

/// This rank's share of a concurrency limit: `total` split as evenly as possible, the first
/// ranks taking the remainder (0, unlimited, stays unlimited).
[[nodiscard]] int concurrency_share(int total, int rank, int size);

/// A rank's result as JSON, and back (for gathering at rank 0).
[[nodiscard]] json load_result_json(const load_result& result);
[[nodiscard]] load_result load_result_from_json(const json& j);

/// Rank 0: one result from every rank's, each rank's times moved onto rank 0's clock by the
/// difference of their wall-clock start times. Records are all of them (in schedule order);
/// the duration runs from the first send of any rank to the last completion; lateness is the
/// worst rank's; the point is invalid when any rank's is; `ranks` lists each rank's requests,
/// lateness, client CPU, host CPU taken by others and start offset.
[[nodiscard]] load_result merge_rank_results(const std::vector<load_result>& results,
                                             const std::vector<std::string>& base_urls);

}  // namespace ironbench::serve
