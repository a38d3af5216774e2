#include "results/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <set>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "core/statistics.hpp"
#include "results/significance.hpp"
#include "schema/serving.hpp"

namespace ironbench::results {
namespace {

using param_list = std::vector<std::pair<std::string, std::string>>;

/// Cases of one side with the same benchmark, device and parameters, pooled over runs.
struct pooled_case {
  std::string benchmark, device;
  param_list params;
  std::map<std::string, std::vector<double>> metric_values;
  std::map<std::string, std::string> units;
  std::vector<double> samples_s;
  std::size_t cases = 0;
  std::string unstable;  ///< why one of the pooled cases is unstable (empty: none is)
};

const std::vector<std::string> preferred_metrics = {
    "tflops",       "busbw",         "bandwidth",  "bw_average",         "output_throughput",
    "tokens_per_s", "samples_per_s", "throughput", "request_throughput", "latency_ms",
    "time_us"};

// A serving point's prompt count says how long it measured, not what: it is no part of the
// case, so sweeps run with different --num-prompts align point by point.
param_list params_of(const core::case_result& c) {
  param_list params;
  for (const auto& [name, value] : c.params.entries()) {
    if (c.benchmark == schema::serving_benchmark && name == schema::vllm_key::num_prompts) continue;
    params.emplace_back(name, core::to_string(value));
  }
  return params;
}

std::string join(const param_list& params) {
  std::string text;
  for (const auto& [name, value] : params) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

std::vector<pooled_case> pool(const comparison_side& side) {
  std::map<std::string, pooled_case> by_key;
  std::vector<std::string> order;
  for (const auto& run : side.runs) {
    for (const auto& c : run.cases) {
      if (c.status != core::case_status::valid) continue;
      auto params = params_of(c);
      const auto key = c.benchmark + "|" + c.device + "|" + join(params);
      auto [it, inserted] = by_key.try_emplace(key);
      auto& p = it->second;
      if (inserted) {
        order.push_back(key);
        p.benchmark = c.benchmark;
        p.device = c.device;
        p.params = std::move(params);
      }
      ++p.cases;
      if (c.unstable && p.unstable.empty()) p.unstable = c.unstable->describe();
      for (const auto& m : c.metrics) {
        if (!std::isfinite(m.value)) continue;
        p.metric_values[m.name].push_back(m.value);
        p.units[m.name] = m.unit;
      }
      if (c.timing) p.samples_s.insert(p.samples_s.end(), c.timing->samples_s.begin(), c.timing->samples_s.end());
    }
  }
  std::vector<pooled_case> pooled;
  for (const auto& key : order) pooled.push_back(std::move(by_key.at(key)));
  return pooled;
}

struct aligned_entry {
  param_list params;
  std::vector<std::vector<const pooled_case*>> per_side;
};

std::string reduced_key(const pooled_case& p, const std::set<std::string>& names, bool per_device, param_list& kept) {
  kept.clear();
  for (const auto& [name, value] : p.params) {
    if (names.count(name) != 0) kept.emplace_back(name, value);
  }
  auto sorted = kept;  // sides may list the same parameters in another order
  std::sort(sorted.begin(), sorted.end());
  return p.benchmark + "|" + (per_device ? p.device : "") + "|" + join(sorted);
}

/// The metric to compare: `wanted`, or the first preferred metric every side has.
std::string choose_metric(const std::vector<std::vector<const pooled_case*>>& per_side, const std::string& wanted) {
  auto everyone_has = [&](const std::string& name) {
    for (const auto& entries : per_side) {
      if (entries.empty()) continue;
      const bool any = std::any_of(entries.begin(), entries.end(),
                                   [&](const pooled_case* p) { return p->metric_values.count(name) != 0; });
      if (!any) return false;
    }
    return true;
  };
  if (!wanted.empty()) return everyone_has(wanted) ? wanted : "";
  for (const auto& name : preferred_metrics) {
    if (everyone_has(name)) return name;
  }
  for (const auto& entries : per_side) {
    for (const auto* p : entries) {
      for (const auto& [name, values] : p->metric_values) {
        if (everyone_has(name)) return name;
      }
    }
  }
  return "";
}

/// Parameters every side uses for a benchmark: the alignment key (the rest collapse), less the
/// ignored and collapsed ones.
std::map<std::string, std::set<std::string>> common_params(const std::vector<std::vector<pooled_case>>& pooled,
                                                           const comparison_options& options) {
  std::map<std::string, std::set<std::string>> common;
  std::map<std::string, std::size_t> sides_with;
  for (const auto& cases : pooled) {
    std::map<std::string, std::set<std::string>> names;
    for (const auto& p : cases) {
      for (const auto& [name, value] : p.params) names[p.benchmark].insert(name);
      names.try_emplace(p.benchmark);
    }
    for (const auto& [benchmark, set] : names) {
      if (sides_with[benchmark]++ == 0) {
        common[benchmark] = set;
      } else {
        std::set<std::string> both;
        std::set_intersection(common[benchmark].begin(), common[benchmark].end(), set.begin(), set.end(),
                              std::inserter(both, both.begin()));
        common[benchmark] = both;
      }
    }
  }
  for (auto& [benchmark, set] : common) {
    for (const auto& ignored : options.ignored_params) set.erase(ignored);
    for (const auto& collapsed : options.collapsed_params) set.erase(collapsed);
  }
  return common;
}

/// The pooled cases of every side aligned on their common parameters, in first-seen order.
std::vector<aligned_entry> align(const std::vector<std::vector<pooled_case>>& pooled,
                                 const comparison_options& options) {
  auto common = common_params(pooled, options);
  std::map<std::string, std::size_t> index;
  std::vector<aligned_entry> aligned;
  for (std::size_t s = 0; s < pooled.size(); ++s) {
    for (const auto& p : pooled[s]) {
      param_list kept;
      const auto key = reduced_key(p, common[p.benchmark], options.per_device, kept);
      auto [it, inserted] = index.try_emplace(key, aligned.size());
      if (inserted) {
        aligned.emplace_back();
        aligned.back().params = kept;
        aligned.back().per_side.resize(pooled.size());
      }
      aligned[it->second].per_side[s].push_back(&p);
    }
  }
  return aligned;
}

/// A row with every per-side column sized for `n` sides, nothing compared yet.
compared_case empty_row(std::size_t n) {
  compared_case row;
  row.values.resize(n);
  row.speedup.assign(n, 1.0);
  row.percent.assign(n, 0.0);
  row.p_value.resize(n);
  row.speedup_low.resize(n);
  row.speedup_high.resize(n);
  row.verdicts.assign(n, verdict::not_comparable);
  row.unstable.assign(n, "");
  return row;
}

/// Each side's best pooled case for the row's metric (its median): fills the row's values and
/// returns the cases chosen (null for a side without the metric).
std::vector<const pooled_case*> choose_cases(const aligned_entry& entry, compared_case& row) {
  const std::size_t n = entry.per_side.size();
  for (std::size_t s = 0; s < n; ++s) {
    for (const auto* p : entry.per_side[s]) {
      if (p->metric_values.count(row.metric) != 0 && row.unit.empty()) row.unit = p->units.at(row.metric);
    }
  }
  row.higher_is_better = metric_higher_is_better(row.metric, row.unit);
  std::vector<const pooled_case*> chosen(n, nullptr);
  for (std::size_t s = 0; s < n; ++s) {
    double best = 0;
    std::size_t cases = 0;
    for (const auto* p : entry.per_side[s]) {
      const auto it = p->metric_values.find(row.metric);
      if (it == p->metric_values.end()) continue;
      const double v = core::percentile(it->second, 50);
      cases += p->cases;
      if (chosen[s] == nullptr || (row.higher_is_better ? v > best : v < best)) {
        best = v;
        chosen[s] = p;
      }
    }
    if (chosen[s] != nullptr) {
      row.values[s] = side_value{best, cases, chosen[s]->samples_s.size()};
      row.unstable[s] = chosen[s]->unstable;
    }
  }
  return chosen;
}

/// Side `s` against side 0: speedup, difference, significance and verdict.
void judge_side(compared_case& row, std::size_t s, const std::vector<const pooled_case*>& chosen,
                const comparison_options& options) {
  const double base = row.values[0]->value;
  const double v = row.values[s]->value;
  if (base <= 0 || v <= 0) return;  // not comparable: a ratio needs two positive numbers
  row.speedup[s] = row.higher_is_better ? v / base : base / v;
  row.percent[s] = (v - base) / base * 100;
  const auto& a = chosen[0]->samples_s;
  const auto& b = chosen[s]->samples_s;
  if (a.size() >= 2 && b.size() >= 2) {
    row.p_value[s] = mann_whitney_u(a, b).p_value;
    // Whatever the metric's direction, the speedup of b over a is a's time over b's.
    const auto interval = bootstrap_median_ratio(a, b, options.confidence);
    row.speedup_low[s] = interval.low;
    row.speedup_high[s] = interval.high;
  }
  const bool tiny = std::abs(row.speedup[s] - 1) < options.min_difference;
  if ((row.p_value[s] && *row.p_value[s] >= options.alpha) || tiny) {
    row.verdicts[s] = verdict::same;
  } else {
    row.verdicts[s] = row.speedup[s] > 1 ? verdict::faster : verdict::slower;
  }
  if (!row.unstable[0].empty() || !row.unstable[s].empty()) row.verdicts[s] = verdict::unstable;
}

/// One aligned entry compared across the sides; none when it cannot be (it is on one side only,
/// not on the first side, has no metric in common, or the first side lacks the metric): those
/// are listed in `result.only_in` as `label`.
std::optional<compared_case> compare_entry(const aligned_entry& entry, const comparison_options& options,
                                           const std::string& label, comparison& result) {
  const std::size_t n = entry.per_side.size();
  std::size_t present = 0;
  for (const auto& e : entry.per_side) present += e.empty() ? 0 : 1;
  if (present < 2 || entry.per_side[0].empty()) {
    for (std::size_t s = 0; s < n; ++s) {
      if (!entry.per_side[s].empty()) result.only_in[s].push_back(label);
    }
    return std::nullopt;
  }
  const auto& any =
      *std::find_if(entry.per_side.begin(), entry.per_side.end(), [](const auto& e) { return !e.empty(); });
  auto row = empty_row(n);
  row.benchmark = any.front()->benchmark;
  row.key = join(entry.params);
  if (options.per_device) row.key += (row.key.empty() ? "" : " ") + std::string("device=") + any.front()->device;
  for (const auto& [name, value] : entry.params) row.params[name] = value;
  row.metric = choose_metric(entry.per_side, options.metric);
  if (row.metric.empty()) {
    for (std::size_t s = 0; s < n; ++s) {
      if (!entry.per_side[s].empty()) result.only_in[s].push_back(label + " (no metric in common)");
    }
    return std::nullopt;
  }
  const auto chosen = choose_cases(entry, row);
  if (!row.values[0]) return std::nullopt;
  for (std::size_t s = 1; s < n; ++s) {
    if (row.values[s]) judge_side(row, s, chosen, options);
  }
  return row;
}

/// Each benchmark's verdict counts and geometric-mean speedup per side, in first-seen order.
class summary_table {
 public:
  explicit summary_table(std::size_t sides) : sides_(sides) {}

  void add(const compared_case& row) {
    auto [it, inserted] = summaries_.try_emplace(row.benchmark);
    auto& summary = it->second;
    if (inserted) {
      order_.push_back(row.benchmark);
      summary.benchmark = row.benchmark;
      summary.geomean_speedup.assign(sides_, 0.0);
      summary.cases.assign(sides_, 0);
      summary.faster.assign(sides_, 0);
      summary.slower.assign(sides_, 0);
      summary.same.assign(sides_, 0);
      summary.unstable.assign(sides_, 0);
    }
    for (std::size_t s = 1; s < sides_; ++s) {
      if (row.verdicts[s] == verdict::not_comparable) continue;
      summary.geomean_speedup[s] += std::log(row.speedup[s]);
      ++summary.cases[s];
      summary.faster[s] += row.verdicts[s] == verdict::faster ? 1 : 0;
      summary.slower[s] += row.verdicts[s] == verdict::slower ? 1 : 0;
      summary.same[s] += row.verdicts[s] == verdict::same ? 1 : 0;
      summary.unstable[s] += row.verdicts[s] == verdict::unstable ? 1 : 0;
    }
  }

  /// The summaries, their sums of logarithms turned into geometric means.
  std::vector<benchmark_summary> finish() {
    std::vector<benchmark_summary> out;
    for (const auto& benchmark : order_) {
      auto summary = summaries_.at(benchmark);
      summary.geomean_speedup[0] = 1;
      for (std::size_t s = 1; s < sides_; ++s) {
        summary.geomean_speedup[s] =
            summary.cases[s] > 0 ? std::exp(summary.geomean_speedup[s] / static_cast<double>(summary.cases[s])) : 0;
      }
      out.push_back(std::move(summary));
    }
    return out;
  }

 private:
  std::size_t sides_;
  std::map<std::string, benchmark_summary> summaries_;
  std::vector<std::string> order_;
};

}  // namespace

const char* to_string(verdict v) {
  switch (v) {
    case verdict::same: return "same";
    case verdict::faster: return "faster";
    case verdict::slower: return "slower";
    case verdict::unstable: return "unstable";
    case verdict::not_comparable: return "not comparable";
  }
  return "?";
}

bool metric_higher_is_better(const std::string& name, const std::string& unit) {
  for (const char* u : {"s", "ms", "us", "ns"}) {
    if (unit == u) return false;
  }
  for (const char* suffix : {"_ms", "_us", "_s", "_ns"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 &&
        name.find("_per_s") == std::string::npos) {
      return false;
    }
  }
  if (name.find("per_usd") != std::string::npos || name.find("per_dollar") != std::string::npos) return true;
  for (const char* lower : {"latency", "time", "usd", "cost", "price", "failed", "wrong", "error"}) {
    if (name.find(lower) != std::string::npos) return false;
  }
  return true;
}

comparison compare_sides(const std::vector<comparison_side>& sides, const comparison_options& options) {
  if (sides.size() < 2) throw usage_error("compare needs at least two sides (runs, files, tag selectors or ref:NAME)");
  for (const auto& side : sides) {
    if (side.runs.empty()) throw usage_error(fmt::format("'{}' selects no run", side.label));
  }
  const std::size_t n = sides.size();
  comparison result;
  result.options = options;
  for (const auto& side : sides) result.labels.push_back(side.label);

  std::vector<std::vector<pooled_case>> pooled;
  for (const auto& side : sides) pooled.push_back(pool(side));
  const auto aligned = align(pooled, options);

  result.only_in.resize(n);
  summary_table summaries(n);
  for (const auto& entry : aligned) {
    const auto& any =
        *std::find_if(entry.per_side.begin(), entry.per_side.end(), [](const auto& e) { return !e.empty(); });
    const std::string label = fmt::format("{} {}{}", any.front()->benchmark, join(entry.params),
                                          options.per_device ? " on " + any.front()->device : "");
    auto row = compare_entry(entry, options, label, result);
    if (!row) continue;
    for (std::size_t s = 1; s < n; ++s) {
      if (row->values[s]) continue;
      result.only_in[0].push_back(label + fmt::format(" (not in {})", result.labels[s]));
    }
    summaries.add(*row);
    result.cases.push_back(std::move(*row));
  }
  result.benchmarks = summaries.finish();
  return result;
}

}  // namespace ironbench::results
