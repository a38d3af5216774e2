// What a pairwise sweep's matrix says: the median link, the links below a factor of it, and
// whether the low links point at a node (most of its links low: the node is at fault) or at
// single links. Pure: a matrix of numbers in, findings out (docs/multinode.md, "Finding the
// bad node or link").
#pragma once

#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::comm {

/// Default of --pair-outlier-factor: a link below 0.8 x the median link is low.
inline constexpr double default_pair_outlier_factor = 0.8;

/// A link below the factor.
struct low_link {
  int a = 0, b = 0;  ///< participant indices, a < b
  double value = 0;  ///< the link's bandwidth (the slower direction), GB/s
  double ratio = 0;  ///< value / median
};

/// A node (participant) most of whose links are low.
struct low_node {
  int node = 0;
  int low_links = 0;  ///< of its links, how many are low
  int links = 0;      ///< its measured links
};

struct pair_findings {
  double factor = default_pair_outlier_factor;
  int links = 0;         ///< links with a measured value
  double median = 0;     ///< of every measured link's value (0 when none)
  double threshold = 0;  ///< factor x median
  bool judged = false;   ///< false when too few links to compare (reason says why)
  std::string reason;
  std::vector<low_link> low;        ///< every link below the threshold, lowest first
  std::vector<low_node> nodes;      ///< the nodes at fault ("the node")
  std::vector<low_link> bad_links;  ///< low links not explained by a node at fault ("the link")
};

/// The number of low links that names a node with `links` measured links: at least three
/// quarters of them (rounded up) and at least 2; a node with fewer than 2 links is never named.
[[nodiscard]] int low_links_naming_a_node(int links);

/// Findings of `matrix` (N x N; matrix[a][b] the bandwidth a -> b, NaN or <= 0 where not
/// measured; the diagonal is ignored): a link's value is the slower of its two directions
/// (either one where only one was measured). Judged with at least 3 links (3 nodes); below
/// that, `reason` says why nothing is named. Throws std::invalid_argument when the matrix is
/// not square or the factor is not in (0, 1].
[[nodiscard]] pair_findings analyse_pairs(const std::vector<std::vector<double>>& matrix,
                                          double factor = default_pair_outlier_factor);

/// One line naming what was found with `labels` (one per participant): "node b (3 of 3 links
/// below 0.8 x median 9.1 GB/s)", "link a <-> c (2.1 GB/s, 0.23 x median)"; "no link below
/// 0.8 x the median 9.1 GB/s" when nothing; the reason when not judged.
[[nodiscard]] std::string describe(const pair_findings& findings, const std::vector<std::string>& labels);

/// {"factor", "links", "median_gbs", "threshold_gbs", "judged", "reason", "low_links": [{"a",
/// "b", "gbs", "ratio"}], "bad_nodes": [{"node", "low_links", "links"}], "bad_links": [...],
/// "summary"}; nodes and links by label.
[[nodiscard]] json to_json(const pair_findings& findings, const std::vector<std::string>& labels);

}  // namespace ironbench::comm
