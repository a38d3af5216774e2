// What a pairwise sweep's matrices say: each link's value (the slower of its two directions,
// each the best of several trials) against a reference link, the links below a factor of it
// (suspects), which of them are slow again when measured a second time (low), and whether the
// low links point at a node (half of its links low or more: the node is at fault) or at single links.
// Pure: matrices of numbers in, findings out (docs/multinode.md, "Finding the bad node or link").
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/json.hpp"

namespace ironbench::comm {

/// Default of --pair-outlier-factor: a link below 0.5 x the reference link is a suspect, and
/// low when below it again measured again. A link 3x slower than the others sits near 0.33 on a
/// quiet machine; on a loaded two-core one, healthy links came out as low as 0.32 in a sweep and
/// a 3x slower node's as high as 0.84 (docs/benchmarks.md, "pairwise sweep: false blame and
/// detection").
inline constexpr double default_pair_outlier_factor = 0.5;

/// The margins: a link of the sweep below pair_sure_high x the factor (0.7 x the reference by
/// default) is a suspect and measured again; measured again, it is low below pair_sure_low x
/// the factor (0.4 x), cleared at or above pair_sure_high x it (0.7 x); in between it is
/// undecided and measured again once more, its exchanges pooled with those before (each
/// direction the median of them all), up to pair_confirm_rounds measurements in all; still in
/// between after the last, it is not named. On a loaded two-core machine (load average about
/// 24) healthy suspects measured again came out at 0.71 x or above in 42 of 44 cases (0.57 and
/// 0.49 the others), the links of a 3x slower node or link at 0.50 x or below in every case;
/// in the sweep, a 3x slower link came out as high as 0.84 (docs/benchmarks.md).
inline constexpr double pair_sure_low = 0.8;
inline constexpr double pair_sure_high = 1.4;
inline constexpr int pair_confirm_rounds = 3;

/// One size's one-way matrix: one_way[a][b] is the bandwidth a -> b in GB/s (NaN or <= 0 where
/// not measured; the diagonal is ignored).
struct size_matrix {
  std::size_t bytes = 0;
  std::vector<std::vector<double>> one_way;
};

/// One link's value at one size: the slower of its two directions, GB/s.
struct link_value {
  int a = 0, b = 0;  ///< participant indices, a < b
  double value = 0;
};

/// A link below the factor, or one that was.
struct low_link {
  int a = 0, b = 0;       ///< participant indices, a < b
  double value = 0;       ///< GB/s at `bytes`: the slower direction, at the size of its lowest ratio
  double ratio = 0;       ///< its lowest ratio to the reference over the judged sizes
  std::size_t bytes = 0;  ///< the size of that ratio
  /// Measured again: its highest ratio over the sizes to the control links measured with it,
  /// and its value at that size; NaN when it was not measured again.
  double confirm_value = 0;
  double confirm_ratio = 0;
  bool confirmed = false;  ///< below the factor again (only then is it low)
  /// Measured again, neither low nor cleared yet (between the margins, or not measured while
  /// rounds are left): to be measured once more.
  bool undecided = false;
  /// Not a suspect of the sweep: a control that came out low measured again, or a link at an
  /// end of a suspect found low, measured again to tell a slow node (its other links low too)
  /// from a slow link (they are not).
  bool neighbour = false;
};

/// A node (participant) most of whose links are low.
struct low_node {
  int node = 0;
  int low_links = 0;  ///< of its links, how many are low
  int links = 0;      ///< its measured links
};

struct pair_findings {
  double factor = 0;
  int links = 0;  ///< links with a measured value
  /// Per judged size (ascending): its bytes and the reference link there, GB/s: the upper
  /// quartile of the links (reference_link).
  std::vector<std::size_t> judged_bytes;
  std::vector<double> references;
  double median = 0;            ///< the reference at the largest judged size (0 when none)
  double threshold = 0;         ///< factor x median
  bool judged = false;          ///< false when too few links to compare (reason says why)
  std::vector<int> node_links;  ///< per participant, its measured links
  /// Every link judged, with its lowest ratio in the sweep (ascending by participants).
  std::vector<low_link> judged_links;
  std::string reason;
  /// Whether the suspects were measured a second time (confirm_suspects); until then the low
  /// links are the suspects.
  bool confirmation = false;
  /// Per judged size, the reference of the second measurement: the upper quartile of the links
  /// measured again, suspects and controls (the sweep's reference where fewer than 2 were).
  std::vector<double> confirm_references;
  int confirm_rounds = 0;  ///< how many times suspects were measured again (set by the sweep)
  /// The nodes with enough links below the suspect bound (pair_sure_high x the factor) in the
  /// sweep to be named: all their links are suspects.
  std::vector<int> suspect_nodes;
  /// Every link below the suspect bound in the sweep and every link of a suspect node (lowest
  /// ratio first), then the neighbours of the links found low (confirm_suspects).
  std::vector<low_link> suspects;
  /// The links named: the suspects below the factor, or after confirmation those below it again.
  std::vector<low_link> low;
  std::vector<low_node> nodes;      ///< the nodes at fault ("the node")
  std::vector<low_link> bad_links;  ///< low links not explained by a node at fault ("the link")
};

/// The number of low links that names a node with `links` measured links: at least half of
/// them (rounded up) and at least 2 (2 of 3 with 4 nodes, 4 of 7 with 8); a node with fewer
/// than 2 links is never named.
[[nodiscard]] int low_links_naming_a_node(int links);

/// The reference link of one size's link values (value > 0): their upper quartile (the 75th
/// percentile, interpolated between the two values around it; 0 without links). Load from
/// elsewhere only ever slows a link, so what a healthy link can do shows in the faster links;
/// slow links do not pull the quartile down until they are more than three quarters of the
/// links: one slow node among 4 or more (3 of 6 links with 4 nodes, 7 of 28 with 8) or one slow
/// link among 3 or more leaves it at a healthy link's value.
[[nodiscard]] double reference_link(const std::vector<link_value>& links);

/// Suspects of `sizes` (square matrices of one participant count; at least one size): at each
/// size a link's value is the slower of its two directions (either one where only one was
/// measured) and its ratio that value over the size's reference; a link is a suspect when its
/// ratio (the lowest over the sizes) is below pair_sure_high x `factor`, or when it is a link of
/// a node with low_links_naming_a_node of its links below that. Judged with at least 3 links (3 nodes);
/// below that, `reason` says why
/// nothing is named. Until confirm_suspects, the suspects below `factor` are low and named (as
/// the node or the link). Throws std::invalid_argument when a matrix is
/// not square, the sizes disagree on the participants, or the factor is not in (0, 1].
[[nodiscard]] pair_findings analyse_pairs(const std::vector<size_matrix>& sizes,
                                          double factor = default_pair_outlier_factor);

/// analyse_pairs of one matrix (bytes 0).
[[nodiscard]] pair_findings analyse_pairs(const std::vector<std::vector<double>>& matrix,
                                          double factor = default_pair_outlier_factor);

/// The links to measure again with the suspects, as their controls: for each suspect (lowest
/// ratio first) and each of its two ends E, the first link E <-> E+1, E+2, ... (around the
/// participants) that is neither a suspect (but for one cleared) nor already chosen, 6 at most, so that the controls
/// spread over the peers rather than all sharing one (a node slow to receive for a while would
/// otherwise pull every control down with it). A slow node's suspects get links among its peers; a slow
/// link's, a link of each end.
[[nodiscard]] std::vector<std::pair<int, int>> control_links(const pair_findings& findings);

/// The links to measure again, in order: each suspect to measure (every suspect, or with
/// `undecided_only` those marked undecided) followed by its controls (control_links, chosen
/// among the links that are no suspect, those at its ends not yet listed), so that a suspect
/// and its controls are measured close together.
[[nodiscard]] std::vector<std::pair<int, int>> links_to_measure_again(const pair_findings& findings,
                                                                      bool undecided_only = false);

/// The suspects' second measurement: `again` holds the matrices of the judged sizes measured
/// again, the suspects and their controls (NaN where not measured; in the sweep each value is
/// the median of every exchange measured again so far). At each size the reference is reference_link of every
/// link measured again there, suspects and controls (the sweep's reference where fewer than 2
/// were): where every link was a suspect, the healthy ones set it. A suspect's confirm_ratio is
/// its highest ratio to it over the sizes measured again: below pair_sure_low x the factor it
/// is low, at or above pair_sure_high x the factor cleared; in between, and when not measured,
/// it is undecided while `last` is false, and with `last` not named. A control measured again
/// below the clearing margin becomes a suspect too (`neighbour`). The other links at both
/// ends of a suspect of the sweep found low that no node at fault explains become suspects too
/// (`neighbour`), decided the same way where
/// `again` measured them and otherwise undecided (measured in the next round), so that a slow
/// node found on one link is named as the node. A suspect decided by an earlier call (a finite
/// confirm_ratio, not undecided) keeps its decision, so that `findings` can be passed again
/// after each round. Only the low suspects are named. Recomputes the nodes and links named.
[[nodiscard]] pair_findings confirm_suspects(pair_findings findings, const std::vector<size_matrix>& again,
                                             bool last = true);

/// Whether any suspect of `findings` is undecided (links_to_measure_again(findings, true)).
[[nodiscard]] bool any_undecided(const pair_findings& findings);

/// One line naming what was found with `labels` (one per participant): "node b (3 of its 3
/// links below 0.5 x the reference 9.1 GB/s, confirmed)", "link a <-> c (2.1 GB/s, 0.23 x the
/// reference 9.1 GB/s, confirmed)"; "no link below 0.5 x the reference 9.1 GB/s (6 links)" when
/// nothing, with the suspects that were not confirmed; the reason when not judged.
[[nodiscard]] std::string describe(const pair_findings& findings, const std::vector<std::string>& labels);

/// {"factor", "links", "judged_bytes", "references_gbs", "median_gbs", "threshold_gbs",
/// "judged", "reason", "confirmation", "confirm_references_gbs", "confirm_rounds", "suspect_nodes",
/// "suspects": [{"a", "b", "gbs", "ratio", "bytes", "confirm_gbs", "confirm_ratio", "confirmed",
/// "undecided", "neighbour"}],
/// "low_links": [...], "bad_nodes": [{"node", "low_links", "links"}], "bad_links": [...],
/// "summary"}; nodes and links by label.
[[nodiscard]] json to_json(const pair_findings& findings, const std::vector<std::string>& labels);

}  // namespace ironbench::comm
