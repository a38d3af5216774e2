#include "schema/straggler_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ironbench::schema {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle)) + upper) / 2;
}

std::string host_of(const straggler_rank& r) { return r.host.empty() ? "?" : r.host; }

}  // namespace

straggler_report find_stragglers(const std::vector<timed_step>& steps, const std::vector<std::string>& hosts,
                                 const straggler_rule& rule) {
  straggler_report report;
  report.rule = rule;
  std::size_t ranks = 0;
  for (const auto& s : steps) ranks = std::max(ranks, s.rank_seconds.size());
  report.ranks = static_cast<int>(ranks);
  std::vector<std::vector<double>> lateness(ranks);
  std::vector<std::size_t> last(ranks, 0);
  std::vector<double> step_lengths;
  for (const auto& s : steps) {
    const auto& t = s.rank_seconds;
    if (t.size() < 2 || t.size() != ranks ||
        !std::all_of(t.begin(), t.end(), [](double v) { return std::isfinite(v) && v >= 0; })) {
      continue;
    }
    ++report.steps;
    const double middle = median(t);
    step_lengths.push_back(*std::max_element(t.begin(), t.end()) * 1e3);
    last[static_cast<std::size_t>(std::min_element(t.begin(), t.end()) - t.begin())] += 1;
    for (std::size_t r = 0; r < ranks; ++r) lateness[r].push_back((middle - t[r]) * 1e3);
  }
  report.median_step_ms = median(step_lengths);
  for (std::size_t r = 0; r < ranks; ++r) {
    straggler_rank s;
    s.rank = static_cast<int>(r);
    if (r < hosts.size()) s.host = hosts[r];
    s.steps_last = last[r];
    if (report.steps > 0) {
      s.share_last = static_cast<double>(last[r]) / static_cast<double>(report.steps);
      s.median_lateness_ms = median(lateness[r]);
      s.max_lateness_ms = *std::max_element(lateness[r].begin(), lateness[r].end());
    }
    s.named = report.steps >= rule.min_steps && s.share_last >= rule.min_share_last &&
              s.median_lateness_ms >= rule.min_lateness_ms &&
              s.median_lateness_ms >= rule.min_lateness_fraction * report.median_step_ms;
    report.per_rank.push_back(std::move(s));
  }
  return report;
}

std::vector<std::string> straggler_lines(const straggler_report& report) {
  std::vector<std::string> lines;
  if (report.steps == 0) return lines;
  for (const auto& r : report.per_rank) {
    if (!r.named) continue;
    lines.push_back(fmt::format(
        "straggler: rank {} (host {}) arrived last in {} of {} steps ({:.0f}%), {:.3g} ms late "
        "per step (median; at most {:.3g} ms)",
        r.rank, host_of(r), r.steps_last, report.steps, r.share_last * 100, r.median_lateness_ms, r.max_lateness_ms));
  }
  if (lines.empty()) {
    const auto most = std::max_element(report.per_rank.begin(), report.per_rank.end(),
                                       [](const auto& a, const auto& b) { return a.steps_last < b.steps_last; });
    lines.push_back(fmt::format(
        "stragglers: none over {} steps of {} ranks (most often last: rank {} (host {}), {:.0f}% of steps, {:.3g} ms "
        "late per step (median); a straggler is last in >= {:.0f}% of steps by >= {:g} ms and >= {:.0f}% of a step)",
        report.steps, report.ranks, most->rank, host_of(*most), most->share_last * 100, most->median_lateness_ms,
        report.rule.min_share_last * 100, report.rule.min_lateness_ms, report.rule.min_lateness_fraction * 100));
  }
  return lines;
}

json straggler_json(const straggler_report& report, const std::string& method) {
  json per_rank = json::array();
  json named = json::array();
  for (const auto& r : report.per_rank) {
    per_rank.push_back({{"rank", r.rank},
                        {"host", r.host},
                        {"steps_last", r.steps_last},
                        {"share_last", r.share_last},
                        {"median_lateness_ms", r.median_lateness_ms},
                        {"max_lateness_ms", r.max_lateness_ms},
                        {"named", r.named}});
    if (r.named) {
      named.push_back({{"rank", r.rank},
                       {"host", r.host},
                       {"share_last", r.share_last},
                       {"median_lateness_ms", r.median_lateness_ms}});
    }
  }
  return {{"method", method},
          {"rule",
           {{"min_share_last", report.rule.min_share_last},
            {"min_lateness_ms", report.rule.min_lateness_ms},
            {"min_lateness_fraction", report.rule.min_lateness_fraction},
            {"min_steps", report.rule.min_steps}}},
          {"steps", report.steps},
          {"ranks", report.ranks},
          {"median_step_ms", report.median_step_ms},
          {"per_rank", std::move(per_rank)},
          {"named", std::move(named)},
          {"summary", straggler_lines(report)}};
}

}  // namespace ironbench::schema
