#include "comm/collectives_health.hpp"

#include <fmt/format.h>

#include "comm/straggler_report.hpp"
#include "core/json.hpp"

namespace ironbench::comm {

std::vector<std::string> rank_hosts(const std::vector<std::string>& rank_descriptions, int ranks) {
  std::vector<std::string> hosts(static_cast<std::size_t>(std::max(ranks, 0)));
  for (const auto& text : rank_descriptions) {
    const auto j = json::parse(text, nullptr, false);
    if (!j.is_object() || !j.contains("rank") || !j["rank"].is_number_integer()) continue;
    const auto rank = j["rank"].get<long long>();
    if (rank < 0 || rank >= ranks) continue;
    hosts[static_cast<std::size_t>(rank)] = j.value("hostname", std::string());
  }
  return hosts;
}

std::vector<std::string> add_straggler_report(core::run_result& run, const std::vector<std::vector<sweep_row>>& trials,
                                              const std::vector<std::string>& rank_descriptions, int ranks) {
  if (ranks < 2) return {};
  const auto steps = collective_steps(trials);
  if (steps.empty()) return {};
  const auto report = find_stragglers(steps, rank_hosts(rank_descriptions, ranks));
  run.settings["stragglers"] = straggler_json(report, collectives_straggler_method);
  return straggler_lines(report);
}

std::vector<std::vector<sweep_row>> kept_trials(const std::vector<std::vector<sweep_row>>& trials) {
  std::vector<std::vector<sweep_row>> kept;
  if (trials.empty()) return kept;
  for (const auto& t : trials) {
    if (t.size() == trials.front().size()) kept.push_back(t);
  }
  return kept;
}

}  // namespace ironbench::comm
