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

/// The sizes of `sizes` that are judged: the largest (16 MiB by default), where an exchange
/// lasts milliseconds. Smaller ones are reported only: 1 MiB crosses loopback in about 0.1 ms,
/// less than a busy core's time slice, and a healthy link measured there on a loaded machine
/// came out below 0.1 x the others (docs/benchmarks.md).
[[nodiscard]] std::vector<std::size_t> judged_pair_sizes(const std::vector<std::size_t>& sizes);

/// Default passes over the rounds: each pair's timed exchanges are spread over this many passes
/// (each exchange timed alone), and a direction's value is its fastest exchange.
inline constexpr int default_pair_passes = 5;

/// --inject-fault for --pairs: parse_fault's forms, and slow@R:xK / slow-link@A-B:xK (K above 1,
/// at most 100): each of the fault's timed exchanges is followed by a wait of K - 1 times its
/// own length, spent as MPI waits on a slow transfer (polling, yielding the core), so that it
/// takes K times as long as it would.
struct pair_fault {
  injected_fault fault;  ///< its delay_ms is not applied with the xK forms
  double slowdown = 1;   ///< K of the xK forms; 1 otherwise
};
[[nodiscard]] pair_fault parse_pair_fault(const std::string& text);
[[nodiscard]] std::string to_string(const pair_fault& fault);

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
void check_fault_applies(const pair_fault& fault, const std::vector<pair_participant>& participants, pair_mode mode);

struct pairwise_settings {
  pair_mode mode = pair_mode::nodes;
  std::vector<std::size_t> sizes = default_pair_sizes();
  /// Timed exchanges per pair, size and direction, each timed alone, ceil(iterations / passes)
  /// in each of `passes` passes over the rounds (fewer passes when iterations < passes).
  int iterations = 20;
  int passes = default_pair_passes;
  int warmup_iterations = 5;  ///< untimed exchanges before them
  double outlier_factor = default_pair_outlier_factor;
  /// slow@R and slow-link@A-B delay the pairs' timed exchanges by fault.delay_ms each or, with
  /// `slowdown` above 1 (slow@R:xK), make them take that many times as long.
  injected_fault fault;
  double slowdown = 1;
  /// Called on every rank before each round with its name (the watchdog's heartbeat; rank 0
  /// shows it); may be empty.
  std::function<void(const std::string& step)> progress;
};

/// One pair at one size; each rate that of the fastest exchange.
struct pair_measurement {
  int a = 0, b = 0;  ///< participant indices, a < b
  std::size_t bytes = 0;
  double a_to_b_gbs = 0;  ///< a sending, b receiving: bytes / the sender's time up to b's acknowledgement
  double b_to_a_gbs = 0;
  double both_gbs = 0;           ///< both sending at once: 2 x bytes / the slower side's time
  std::int64_t wrong_bytes = 0;  ///< bytes received that differ from the exact pattern (both sides)
};

struct pairwise_result {
  pair_mode mode = pair_mode::nodes;
  int ranks = 0;  ///< in the job
  std::vector<pair_participant> participants;
  int rounds = 0;
  std::vector<std::size_t> sizes;
  std::vector<std::size_t> judged_sizes;  ///< judged_pair_sizes(sizes)
  int iterations = 0, warmup_iterations = 0;
  int passes = 0, exchanges_per_pass = 0;
  std::vector<pair_measurement> pairs;  ///< rank 0 only: every pair at every size
  /// Rank 0 only: the suspects and their controls measured again (after the rounds, one pair at
  /// a time) at the judged sizes, each direction the median of every exchange it had in the
  /// rounds of measuring again (up to pair_confirm_rounds): a suspect and its controls take turns
  /// pass by pass, a few exchanges at a time, so that load elsewhere falls on both, and the
  /// median is what most of their exchanges saw, where the fastest is one lucky exchange's.
  std::vector<pair_measurement> confirmations;
  pair_findings findings;        ///< rank 0 only: of the one-way matrices at the judged sizes, confirmed
  std::int64_t wrong_bytes = 0;  ///< over every pair (every rank)
  double seconds = 0;            ///< the whole sweep's wall time
  double rounds_seconds = 0;     ///< of which the rounds
  double confirm_seconds = 0;    ///< and the suspects measured again
  bool interrupted = false;
  std::string fault;  ///< the --inject-fault applied, empty for none
};

/// The N x N matrix of `kind` ("one_way": [a][b] = a -> b; "both": symmetric) at `bytes` of
/// result.pairs; NaN on the diagonal and where nothing was measured.
[[nodiscard]] std::vector<std::vector<double>> pair_matrix(const pairwise_result& result, std::size_t bytes,
                                                           const std::string& kind);

/// The findings of `result`'s pairs at its judged sizes (suspects, every one named), then
/// confirmed by result.confirmations (confirm_suspects, `last`: whether no round of measuring
/// again is left), judged from scratch. run_pairwise passes its findings to confirm_suspects
/// after each round instead, so that a suspect decided in one round keeps its decision.
[[nodiscard]] pair_findings judge_pairs(const pairwise_result& result, double factor, bool last = true);

/// The participants' labels, in order.
[[nodiscard]] std::vector<std::string> participant_labels(const pairwise_result& result);

/// Runs the sweep on every rank of `world` (a collective call): the rounds, then every suspect
/// pair measured again at the judged sizes, one pair at a time, and the undecided ones once more
/// (confirm_suspects), up to pair_confirm_rounds times. Throws usage_error, on every
/// rank alike, when there are fewer than 2 participants or the fault names a rank that takes no
/// part. Stops after the current round (or pair measured again) once `cancel` is set on any
/// rank; the suspects not measured again are then not named.
[[nodiscard]] pairwise_result run_pairwise(bootstrap& world, peer_exchange& peers, const std::string& host_name,
                                           const pairwise_settings& settings,
                                           const std::atomic<bool>* cancel = nullptr);

/// The run JSON's settings.pairwise (docs/results-format.md).
[[nodiscard]] json to_json(const pairwise_result& result);

/// One case per pair and size (benchmark "pairwise"): params link ("a <-> b"), size; metrics
/// a_to_b_gbs, b_to_a_gbs, both_gbs, wrong_bytes; invalid where a byte was wrong.
[[nodiscard]] std::vector<core::case_result> pairwise_cases(const pairwise_result& result);

}  // namespace ironbench::comm
