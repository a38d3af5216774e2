// The pairwise sweep's result as the run JSON's settings.pairwise and as one case per pair and
// size (pairwise_sweep.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "comm/pairwise_sweep.hpp"
#include "core/units.hpp"

namespace ironbench::comm {
namespace {

// The decision rule of `r`'s findings, in words (the run JSON's "statistic").
std::string pair_statistic(const pairwise_result& r) {
  std::string sizes;
  for (const auto bytes : r.judged_sizes.empty() ? judged_pair_sizes(r.sizes) : r.judged_sizes) {
    sizes += (sizes.empty() ? "" : " and ") + format_bytes(static_cast<double>(bytes));
  }
  return fmt::format(
      "each direction: its fastest of {0} exchanges, each timed alone ({1} in each of {2} passes over the rounds); a "
      "link: its slower direction at {3}; the reference: the upper quartile of the links; "
      "a suspect: a link below {5:g} x the factor x the reference, or any link of a node with half of its links "
      "(rounded up, at least 2) below that; measured again (one pair at a time, each way alone, with up to 6 control "
      "links at their ends, each direction the median of its exchanges), a suspect's ratio to the upper quartile of "
      "the links measured again decides: low below {4:g} x the factor, cleared at {5:g} x it or above, in between "
      "measured again (its exchanges pooled) up to {6} times in all, then not named; the other links at the ends of "
      "a suspect found low are measured again too (a slow node or a slow link)",
      r.passes * r.exchanges_per_pass, r.exchanges_per_pass, r.passes, sizes.empty() ? "no size" : sizes, pair_sure_low,
      pair_sure_high, pair_confirm_rounds);
}

}  // namespace

json to_json(const pairwise_result& r) {
  const auto matrix_json = [](const std::vector<std::vector<double>>& m) {
    json rows = json::array();
    for (const auto& row : m) {
      json cells = json::array();
      for (const double v : row) cells.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      rows.push_back(std::move(cells));
    }
    return rows;
  };
  json participants = json::array(), matrices = json::array(), again = json::array();
  for (const auto& p : r.participants) {
    participants.push_back(
        {{"label", p.label}, {"rank", p.rank}, {"host", p.host}, {"ranks_on_node", p.ranks_on_node}});
  }
  for (const auto bytes : r.sizes) {
    matrices.push_back({{"bytes", bytes},
                        {"one_way_gbs", matrix_json(pair_matrix(r, bytes, "one_way"))},
                        {"both_gbs", matrix_json(pair_matrix(r, bytes, "both"))}});
  }
  const auto labels = participant_labels(r);
  const auto label = [&](int i) {
    return i >= 0 && static_cast<std::size_t>(i) < labels.size() ? labels[static_cast<std::size_t>(i)]
                                                                 : fmt::format("#{}", i);
  };
  for (const auto& m : r.confirmations) {
    const bool suspect = std::any_of(r.findings.suspects.begin(), r.findings.suspects.end(),
                                     [&](const low_link& l) { return l.a == m.a && l.b == m.b; });
    again.push_back({{"a", label(m.a)},
                     {"b", label(m.b)},
                     {"bytes", m.bytes},
                     {"control", !suspect},
                     {"a_to_b_gbs", m.a_to_b_gbs},
                     {"b_to_a_gbs", m.b_to_a_gbs}});
  }
  const auto n = static_cast<int>(r.participants.size());
  const auto judged = r.judged_sizes.empty() ? judged_pair_sizes(r.sizes) : r.judged_sizes;
  return {{"mode", to_string(r.mode)},
          {"ranks", r.ranks},
          {"participants", participants},
          {"rounds", r.rounds},
          {"pairs", n * (n - 1) / 2},
          {"sizes", r.sizes},
          {"iterations", r.iterations},
          {"warmup_iterations", r.warmup_iterations},
          {"passes", r.passes},
          {"exchanges_per_pass", r.exchanges_per_pass},
          {"seconds", r.seconds},
          {"rounds_seconds", r.rounds_seconds},
          {"confirm_seconds", r.confirm_seconds},
          {"confirm_rounds", r.findings.confirm_rounds},
          {"wrong_bytes", r.wrong_bytes},
          {"interrupted", r.interrupted},
          {"fault", r.fault},
          {"judged_at_bytes", judged.empty() ? 0 : judged.back()},
          {"judged_sizes", judged},
          {"statistic", pair_statistic(r)},
          {"matrices", matrices},
          {"measured_again", again},
          {"findings", to_json(r.findings, labels)}};
}

std::vector<core::case_result> pairwise_cases(const pairwise_result& r) {
  std::vector<core::case_result> cases;
  const auto labels = participant_labels(r);
  const int exchanges = r.passes * r.exchanges_per_pass;
  const auto best_of = fmt::format("the fastest of {} exchange{}", exchanges, exchanges == 1 ? "" : "s");
  for (const auto& p : r.pairs) {
    core::case_result c;
    c.benchmark = "pairwise";
    c.device = fmt::format("{} {}", r.participants.size(), to_string(r.mode));
    c.params.set(
        "link", fmt::format("{} <-> {}", labels[static_cast<std::size_t>(p.a)], labels[static_cast<std::size_t>(p.b)]));
    c.params.set("size", static_cast<std::int64_t>(p.bytes));
    c.param_units["size"] = "B";
    const auto metric = [&](const char* name, double value, const char* unit, const std::string& what) {
      c.metrics.push_back({name, value, unit, what});
    };
    metric("a_to_b_gbs", p.a_to_b_gbs, "GB/s",
           fmt::format("{} sending to {} alone, {}", labels[static_cast<std::size_t>(p.a)],
                       labels[static_cast<std::size_t>(p.b)], best_of));
    metric("b_to_a_gbs", p.b_to_a_gbs, "GB/s",
           fmt::format("{} sending to {} alone, {}", labels[static_cast<std::size_t>(p.b)],
                       labels[static_cast<std::size_t>(p.a)], best_of));
    metric("both_gbs", p.both_gbs, "GB/s", "both sending at once, bytes of both directions, " + best_of);
    metric("wrong_bytes", static_cast<double>(p.wrong_bytes), "B", "received bytes that differ from the exact pattern");
    c.work.bytes_written = static_cast<double>(p.bytes);
    c.notes["verification"] = "every byte received, both ways, against the exact pattern of its sender";
    if (p.wrong_bytes > 0) {
      c.status = core::case_status::invalid;
      c.reason = fmt::format("{} bytes received differ from what was sent", p.wrong_bytes);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::comm
