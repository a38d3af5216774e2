#include "doctor/collective_checks.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ironbench::doctor {
namespace {

// A variable whose value turns a fast path off: which values, what it costs.
struct slow_setting {
  const char* variable;
  std::vector<const char*> values;  ///< the values that do it
  severity level;
  const char* consequence;
};

const std::vector<slow_setting>& slow_settings() {
  static const std::vector<slow_setting> table{
      {"NCCL_P2P_DISABLE",
       {"1"},
       severity::critical,
       "GPUs in a node exchange data through host memory, not NVLink/xGMI or PCIe peer-to-peer"},
      {"NCCL_SHM_DISABLE",
       {"1"},
       severity::warning,
       "ranks in a node cannot use shared memory and fall back to the network"},
      {"NCCL_IB_DISABLE",
       {"1"},
       severity::critical,
       "InfiniBand/RoCE is not used: traffic between nodes goes over TCP sockets"},
      {"NCCL_NET_GDR_LEVEL",
       {"0", "LOC"},
       severity::warning,
       "GPUDirect RDMA is off: NIC traffic is staged through host memory"},
      {"NCCL_P2P_LEVEL", {"0", "LOC"}, severity::critical, "peer-to-peer between GPUs is off"},
      {"NCCL_NVLS_ENABLE", {"0"}, severity::info, "NVLink SHARP (in-switch reductions) is off"},
      {"NCCL_COLLNET_ENABLE", {"0"}, severity::info, "in-network (SHARP) collectives are off"},
      {"NCCL_PROTO",
       {"Simple", "simple"},
       severity::warning,
       "only the Simple protocol: small messages lose the LL/LL128 latency paths"},
      {"NCCL_ALGO",
       {"Ring", "ring"},
       severity::info,
       "only the ring algorithm: the tree and NVLS algorithms are not used"},
      {"NCCL_MAX_NCHANNELS",
       {"1", "2"},
       severity::warning,
       "one or two channels: large messages cannot use the links in parallel"},
      {"NCCL_DEBUG",
       {"INFO", "TRACE", "info", "trace"},
       severity::info,
       "NCCL logs every call, which adds host time to small messages"},
      {"HSA_ENABLE_SDMA", {"0"}, severity::info, "ROCm copies use shader kernels instead of the SDMA engines"},
      {"RCCL_MSCCL_ENABLE", {"0"}, severity::info, "RCCL's MSCCL algorithms for small and medium messages are off"},
  };
  return table;
}

// Collective settings slow collectives, and the tensor-parallel and training runs built on them.
const std::vector<std::string> collective_results{"collectives", "tp_infer", "train"};

}  // namespace

std::vector<finding> check_collective_environment(const doctor_facts& facts) {
  std::vector<finding> out;
  for (const auto& s : slow_settings()) {
    const auto found = facts.environment.find(s.variable);
    if (found == facts.environment.end()) continue;
    if (std::none_of(s.values.begin(), s.values.end(), [&](const char* v) { return found->second == v; })) continue;
    out.push_back(make_finding(s.level, fmt::format("{}={}: {}", s.variable, found->second, s.consequence),
                               fmt::format("environment: {}={}", s.variable, found->second), collective_results,
                               fmt::format("unset {} unless it works around a known fault", s.variable)));
  }
  return out;
}

std::vector<finding> check_ranks_per_node(const doctor_facts& facts) {
  const auto& ranks = facts.ranks_per_node;
  if (ranks.size() < 2) return {};
  const auto [low, high] = std::minmax_element(ranks.begin(), ranks.end());
  if (*low == *high) return {};
  return {make_finding(
      severity::warning,
      fmt::format("ranks are spread unevenly over {} nodes ({} to {} per node): the busiest node sets the pace",
                  ranks.size(), *low, *high),
      fmt::format("ranks per node: {}", fmt::join(ranks, ", ")), collective_results,
      "the same number of ranks on every node (mpirun --map-by ppr:N:node, srun --ntasks-per-node)")};
}

}  // namespace ironbench::doctor
