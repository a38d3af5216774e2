// Multi-node validation: every node (MPI rank) validates itself, rank 0 gathers the reports
// into one table of checks x nodes and names the slow nodes: those whose measured value of a
// check is below 0.9 x the median of all nodes (the stragglers of nccl-tests' JSON analysis).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "validate/verdict.hpp"

namespace ironbench::validate {

/// One node's validation as rank 0 receives it: {"node": "host (rank N)", ...to_json(report)}.
struct node_report {
  std::string node;
  json validation;
};

/// A node named slow on one check.
struct slow_node {
  std::string node;
  std::string check;
  std::string device;
  double measured = 0;
  double median = 0;  ///< of every node's value of the check
};

struct node_table {
  std::vector<std::string> nodes;
  std::vector<node_report> reports;
  std::vector<slow_node> slow;
  verdict overall = verdict::pass;  ///< the worst node's
};

/// Node labels: the host names, with " (rank N)" where a host runs several ranks.
[[nodiscard]] std::vector<std::string> node_labels(const std::vector<std::string>& hostnames);

/// The table of `reports`; a node is slow on a check (same check and device on every node)
/// when its value is below `slow_below` x the nodes' median.
[[nodiscard]] node_table merge_nodes(std::vector<node_report> reports, double slow_below = 0.9);

/// Checks x nodes as aligned text (each cell: measured value and verdict), the slow nodes,
/// and the summary.
void write_node_table(const node_table& table, std::ostream& out);

[[nodiscard]] json to_json(const node_table& table);

}  // namespace ironbench::validate
