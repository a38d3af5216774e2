#include "results/trend_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "results/comparison.hpp"

namespace ironbench::results {

std::string trend_series::label() const {
  std::string text = benchmark + " on " + device;
  for (const auto& [name, value] : params) text += " " + name + "=" + value;
  return text;
}

std::vector<trend_series> build_trends(const results_store& store, const trend_query& query,
                                       const trend_options& options) {
  auto filter = query.filter;
  filter.limit = 0;
  auto runs = store.list(filter);
  if (runs.empty()) throw usage_error(fmt::format("no stored run in {} matches the selection", store.path().string()));
  std::reverse(runs.begin(), runs.end());  // oldest first; list() breaks start-time ties by id
  std::vector<trend_series> series;
  std::vector<std::vector<trend_point>> points;  // per series, with the samples the judgement needs
  std::map<std::string, std::size_t> index;
  for (const auto& stored : runs) {
    const auto run = store.load(stored.id);
    for (const auto& c : run.cases) {
      if (c.status != core::case_status::valid) continue;
      if (!query.filter.benchmark.empty() && c.benchmark != query.filter.benchmark) continue;
      if (!query.device.empty() && c.device != query.device) continue;
      std::vector<std::pair<std::string, std::string>> params;
      for (const auto& [name, value] : c.params.entries()) params.emplace_back(name, core::to_string(value));
      const bool matches = std::all_of(query.params.begin(), query.params.end(), [&](const auto& wanted) {
        return std::any_of(params.begin(), params.end(),
                           [&](const auto& p) { return p.first == wanted.first && p.second == wanted.second; });
      });
      if (!matches) continue;
      const auto* metric = c.find_metric(query.metric);
      if (metric == nullptr || !std::isfinite(metric->value)) continue;
      auto sorted = params;
      std::sort(sorted.begin(), sorted.end());
      std::string key = c.benchmark + "|" + c.device;
      for (const auto& [name, value] : sorted) key += "|" + name + "=" + value;
      auto [it, added] = index.try_emplace(key, series.size());
      if (added) {
        trend_series s;
        s.benchmark = c.benchmark;
        s.device = c.device;
        s.params = params;
        s.metric = query.metric;
        s.unit = metric->unit;
        s.higher_is_better = metric_higher_is_better(query.metric, metric->unit);
        series.push_back(std::move(s));
        points.emplace_back();
      }
      auto& s = series[it->second];
      if (!s.entries.empty() && s.entries.back().run == stored.id) continue;  // one point per run and case
      trend_entry e;
      e.run = stored.id;
      e.uuid = stored.uuid;
      e.start_time = stored.start_time;
      e.host = stored.host;
      e.value = metric->value;
      e.samples = c.timing ? c.timing->samples_s.size() : 0;
      s.entries.push_back(std::move(e));
      trend_point p;
      p.value = metric->value;
      if (c.timing) p.samples_s = c.timing->samples_s;
      points[it->second].push_back(std::move(p));
    }
  }
  if (series.empty()) {
    throw usage_error(
        fmt::format("no valid case of the {} selected run(s) has the metric '{}'", runs.size(), query.metric));
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    auto judged = options;
    judged.higher_is_better = series[i].higher_is_better;
    const auto verdicts = detect_changes(points[i], judged);
    for (std::size_t j = 0; j < verdicts.size(); ++j) series[i].entries[j].verdict = verdicts[j];
  }
  return series;
}

bool has_recent_regression(const trend_series& series, std::size_t recent) {
  const auto& e = series.entries;
  const std::size_t from = recent == 0 || recent >= e.size() ? 0 : e.size() - recent;
  return std::any_of(e.begin(), e.end(), [&](const trend_entry& entry) {
    return entry.verdict.flag == trend_flag::regression && entry.verdict.detected_at >= from;
  });
}

json trends_json(const std::vector<trend_series>& series) {
  json all = json::array();
  for (const auto& s : series) {
    json params = json::object();
    for (const auto& [name, value] : s.params) params[name] = value;
    json runs = json::array();
    for (const auto& e : s.entries) {
      json r = {{"run", e.run},
                {"uuid", e.uuid},
                {"start_time", e.start_time},
                {"host", e.host},
                {"value", e.value},
                {"samples", e.samples},
                {"flag", to_string(e.verdict.flag)},
                {"reference", e.verdict.reference},
                {"reference_runs", e.verdict.reference_runs},
                {"change", e.verdict.change},
                {"scatter", e.verdict.scatter}};
      const bool change = e.verdict.flag == trend_flag::regression || e.verdict.flag == trend_flag::improvement;
      if (change) {
        r["rule"] = to_string(e.verdict.rule);
        r["confirmed"] = e.verdict.confirmed;
        r["detected_at_run"] = s.entries.at(e.verdict.detected_at).run;
        r["level"] = e.verdict.level;
        r["level_runs"] = e.verdict.level_runs;
        if (e.verdict.rule == trend_rule::from_zero) r["absolute_change"] = e.verdict.absolute_change;
      }
      if (e.verdict.p_value) r["p_value"] = *e.verdict.p_value;
      if (e.verdict.speedup_low) r["speedup_low"] = *e.verdict.speedup_low;
      if (e.verdict.speedup_high) r["speedup_high"] = *e.verdict.speedup_high;
      runs.push_back(std::move(r));
    }
    all.push_back({{"case", s.label()},
                   {"benchmark", s.benchmark},
                   {"device", s.device},
                   {"params", std::move(params)},
                   {"metric", s.metric},
                   {"unit", s.unit},
                   {"higher_is_better", s.higher_is_better},
                   {"runs", std::move(runs)}});
  }
  return all;
}

}  // namespace ironbench::results
