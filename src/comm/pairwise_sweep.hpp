// `ironbench collectives --pairs`: the bandwidth between every pair of nodes (one rank each,
// the lowest of the node) or of ranks, measured in rounds of disjoint pairs (pairwise_schedule),
// each pair exchanging both ways at once and each way alone at a few sizes, every byte
// received checked; rank 0 gathers the node x node matrix and names the slow node or link
// (pairwise_analysis). Runs on every rank of the job; no CLI types.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "comm/communicator.hpp"
#include "comm/injected_fault.hpp"
#include "comm/pairwise_analysis.hpp"
#include "comm/peer_exchange.hpp"
#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::comm {

enum class pair_mode { nodes, ranks };

/// "nodes" or "ranks"; usage_error "--pairs takes nodes or ranks, not 'x'" otherwise.
[[nodiscard]] pair_mode parse_pair_mode(const std::string& text);
[[nodiscard]] const char* to_string(pair_mode mode);

/// 64 KiB, 1 MiB and 16 MiB: latency-bound, middle and bandwidth-bound exchanges.
[[nodiscard]] std::vector<std::size_t> default_pair_sizes();

/// One side of the pairs: a node (its lowest rank measures for it) or a rank.
struct pair_participant {
  int rank = 0;       ///< the MPI rank that measures
  std::string host;   ///< its node name (host name, or IRONBENCH_NODE_NAME)
  std::string label;  ///< nodes: the node name; ranks: "rank R"
  int ranks_on_node = 1;
};

/// The participants from every rank's node name, in rank order: per node its lowest rank
/// (nodes mode, in the order of those ranks), or every rank (ranks mode).
[[nodiscard]] std::vector<pair_participant> select_participants(pair_mode mode, const std::vector<std::string>& hosts);

/// Throws usage_error when `fault` names a rank that is not a participant (or a slow link
/// between ranks that are not both participants), naming the participants' ranks.
void check_fault_applies(const injected_fault& fault, const std::vector<pair_participant>& participants,
                         pair_mode mode);

struct pairwise_settings {
  pair_mode mode = pair_mode::nodes;
  std::vector<std::size_t> sizes = default_pair_sizes();
  int iterations = 20;        ///< timed exchanges per pair, size and direction
  int warmup_iterations = 5;  ///< untimed exchanges before them
  double outlier_factor = default_pair_outlier_factor;
  injected_fault fault;  ///< slow@R and slow-link@A-B delay the pairs' timed exchanges
  /// Called on every rank before each round with its name (the watchdog's heartbeat; rank 0
  /// shows it); may be empty.
  std::function<void(const std::string& step)> progress;
};

/// One pair at one size.
struct pair_measurement {
  int a = 0, b = 0;  ///< participant indices, a < b
  std::size_t bytes = 0;
  double a_to_b_gbs = 0;  ///< a sending, b receiving: bytes x iterations / the sender's time
  double b_to_a_gbs = 0;
  double both_gbs = 0;           ///< both sending at once: 2 x bytes x iterations / the slower side's time
  std::int64_t wrong_bytes = 0;  ///< bytes received that differ from the exact pattern (both sides)
};

struct pairwise_result {
  pair_mode mode = pair_mode::nodes;
  int ranks = 0;  ///< in the job
  std::vector<pair_participant> participants;
  int rounds = 0;
  std::vector<std::size_t> sizes;
  int iterations = 0, warmup_iterations = 0;
  std::vector<pair_measurement> pairs;  ///< rank 0 only: every pair at every size
  pair_findings findings;               ///< rank 0 only: of the one-way matrix at the largest size
  std::int64_t wrong_bytes = 0;         ///< over every pair (every rank)
  double seconds = 0;                   ///< the sweep's wall time
  bool interrupted = false;
  std::string fault;  ///< the --inject-fault applied, empty for none
};

/// The N x N matrix of `kind` ("one_way": [a][b] = a -> b; "both": symmetric) at `bytes`;
/// NaN on the diagonal and where nothing was measured.
[[nodiscard]] std::vector<std::vector<double>> pair_matrix(const pairwise_result& result, std::size_t bytes,
                                                           const std::string& kind);

/// The participants' labels, in order.
[[nodiscard]] std::vector<std::string> participant_labels(const pairwise_result& result);

/// Runs the sweep on every rank of `world` (a collective call). Throws usage_error, on every
/// rank alike, when there are fewer than 2 participants or the fault names a rank that takes no
/// part. Stops after the current round once `cancel` is set on any rank.
[[nodiscard]] pairwise_result run_pairwise(bootstrap& world, peer_exchange& peers, const std::string& host_name,
                                           const pairwise_settings& settings,
                                           const std::atomic<bool>* cancel = nullptr);

/// The run JSON's settings.pairwise (docs/results-format.md).
[[nodiscard]] json to_json(const pairwise_result& result);

/// One case per pair and size (benchmark "pairwise"): params link ("a <-> b"), size; metrics
/// a_to_b_gbs, b_to_a_gbs, both_gbs, wrong_bytes; invalid where a byte was wrong.
[[nodiscard]] std::vector<core::case_result> pairwise_cases(const pairwise_result& result);

}  // namespace ironbench::comm
