// What a scheduler reads to take a failing node out of the pool: the reason text a Slurm health
// check gives `scontrol update NodeName=... State=DRAIN Reason=...`, and the node condition a
// Kubernetes node-problem detector (or `kubectl patch --subresource=status`) sets. Both are
// written from a validation's JSON (validate::to_json), one node's or every node's, so that
// a single node and rank 0 of a multi-node validation print the same lines.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "validate/node_table.hpp"
#include "validate/validation.hpp"

namespace ironbench::validate {

/// One node's validation as the formats read it: its name (empty on a single node) and its
/// validation JSON ({"verdict", "checks": [...]}, as validate::to_json gives it).
struct node_validation {
  std::string node;
  json validation;
  std::vector<std::string> slow_checks;  ///< "CHECK on DEVICE at 0.62 of the nodes' median"
};

/// Longest reason text (Slurm keeps the reason in its state and `sinfo -R` prints it: longer
/// reasons are cut, naming how many checks were left out).
inline constexpr std::size_t max_reason_chars = 240;

/// "ironbench validate LEVEL VERDICT: CHECK on DEVICE 0.62x expected; ..." — the FAIL checks
/// first, then the WARN ones, then the slow checks; PASS names the count of checks. Only
/// letters, digits, spaces and `.,:;=+-_/%()` (what neither a shell, quoted or not, nor a Slurm
/// reason reads specially; any other byte becomes a space), at most max_reason_chars.
[[nodiscard]] std::string drain_reason(const node_validation& node);

/// Whether `name` is a plain host name as Slurm takes a NodeName (`hostname -s` or a fully
/// qualified one): 1 to 253 letters, digits, '-', '.' and '_', not starting with '-' or '.'.
/// Nothing in it is read specially by a Slurm hostlist (`[`, `]`, `,`, spaces) or a shell.
[[nodiscard]] bool is_plain_host_name(std::string_view name);

/// A node's name as the scheduler formats print it: a plain host name as it is; any other with
/// every byte but letters, digits, '_' (and '-' or '.' after the first byte) written %XX
/// (`n[1-64],x` is `n%5B1-64%5D%2Cx`): no hostlist expands it, no shell splits, globs or runs
/// it, no two names print the same, and no real node has such a name (a loop that drains the
/// named nodes refuses it instead of draining 65). An empty name is "%00".
[[nodiscard]] std::string scheduler_node_name(std::string_view name);

/// The Kubernetes NodeCondition of a node: type "IronbenchValidationFailed", status "True"
/// for FAIL (the node-problem convention: True means the problem is present) and "False"
/// otherwise, reason ValidationFailed, ValidationWarned or ValidationPassed, the drain reason
/// as message, and both times set to `now` (RFC 3339, UTC).
[[nodiscard]] json node_condition(const node_validation& node, std::chrono::system_clock::time_point now);

/// A --format of `validate`: its name, what it is for, and how it writes the nodes.
struct scheduler_format {
  const char* name;
  const char* help;
  std::function<void(const std::vector<node_validation>& nodes, std::ostream& out)> write;
};

/// The table of --format values besides the default "table": slurm (one reason line per
/// node, "NODE<TAB>REASON" when there are several nodes) and k8s-condition (one NodeCondition
/// JSON per node, one per line, with "node" added when there are several). NODE is
/// scheduler_node_name of the node's name (a text a hostlist or a shell reads); "node" is the
/// name exactly, as in the run file (JSON's own quoting keeps it one string).
[[nodiscard]] const std::vector<scheduler_format>& scheduler_formats();

/// The format named `name`; nullptr for "table" (the default, for people). Throws usage_error
/// naming every --format value for any other name.
[[nodiscard]] const scheduler_format* find_scheduler_format(const std::string& name);

/// The nodes as the formats take them: this machine's `validation`, or every node of `table`
/// (rank 0 of a multi-node validation) with the checks on which it is slow against the others.
[[nodiscard]] std::vector<node_validation> scheduler_nodes(const validation_report& validation,
                                                           const node_table* table);

}  // namespace ironbench::validate
