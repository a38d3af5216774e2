#include "serve/metrics/server_metrics_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "serve/metrics/engine_metric_names.hpp"
#include "serve/metrics/histogram_delta.hpp"

namespace ironbench::serve {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

bool matches(const prometheus_sample& sample, const char* name, const char* selector) {
  if (sample.name != name) return false;
  const std::string_view wanted(selector);
  if (wanted.empty()) return true;
  const auto equals = wanted.find('=');
  const auto* value = sample.label(wanted.substr(0, equals));
  return value != nullptr && *value == wanted.substr(equals + 1);
}

// The sum and count of the samples of `name` matching `selector` in one answer.
struct total {
  double sum = 0;
  std::size_t count = 0;
};
total add_up(const endpoint_scrape& scrape, const char* name, const char* selector) {
  total t;
  for (const auto& s : scrape.samples) {
    if (matches(s, name, selector) && std::isfinite(s.value)) {
      t.sum += s.value;
      ++t.count;
    }
  }
  return t;
}

bool present(const std::vector<scrape_round>& rounds, const engine_series& row) {
  for (const auto& round : rounds) {
    for (const auto& e : round.endpoints) {
      if (add_up(e, row.series, row.selector).count > 0) return true;
    }
  }
  return false;
}

// The row each common metric comes from, for `engine`: the first alternative present.
std::map<std::string, const engine_series*> rows_of(const std::vector<scrape_round>& rounds,
                                                    const std::string& engine) {
  std::map<std::string, const engine_series*> chosen;
  for (const auto& row : engine_series_table()) {
    if (row.engine != engine || chosen.count(row.metric) > 0) continue;
    if (present(rounds, row)) chosen[row.metric] = &row;
  }
  return chosen;
}

std::optional<std::string> detect_engine(const std::vector<scrape_round>& rounds) {
  std::optional<std::string> best;
  std::size_t best_count = 0;
  for (const auto& engine : known_engines()) {
    const auto count = rows_of(rounds, engine).size();
    if (count > best_count) {
      best = engine;
      best_count = count;
    }
  }
  return best;
}

// Gauge: the value at each round (NaN where no answer had it).
std::vector<double> gauge_values(const std::vector<scrape_round>& rounds, const engine_series& row) {
  std::vector<double> values;
  for (const auto& round : rounds) {
    double sum = 0;
    std::size_t count = 0, answers = 0;
    for (const auto& e : round.endpoints) {
      const auto t = add_up(e, row.series, row.selector);
      if (t.count == 0) continue;
      ++answers;
      sum += row.source == series_source::gauge_mean ? t.sum / static_cast<double>(t.count) : t.sum;
      count += t.count;
    }
    if (count == 0) {
      values.push_back(nan);
    } else {
      values.push_back(row.scale *
                       (row.source == series_source::gauge_mean ? sum / static_cast<double>(answers) : sum));
    }
  }
  return values;
}

// Counter `name`: per round, the increase since the round before, summed over the URLs that
// answered both times (NaN for the first round and where no URL did).
std::vector<double> counter_increases(const std::vector<scrape_round>& rounds, const char* name, const char* selector) {
  std::vector<double> out(rounds.size(), nan);
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    const auto n = std::min(rounds[i].endpoints.size(), rounds[i - 1].endpoints.size());
    double sum = 0;
    bool any = false;
    for (std::size_t e = 0; e < n; ++e) {
      const auto before = add_up(rounds[i - 1].endpoints[e], name, selector);
      const auto after = add_up(rounds[i].endpoints[e], name, selector);
      if (before.count == 0 || after.count == 0) continue;
      sum += counter_increase(before.sum, after.sum);
      any = true;
    }
    if (any) out[i] = sum;
  }
  return out;
}

double seconds_between(const scrape_round& a, const scrape_round& b) {
  return static_cast<double>(b.monotonic_ns - a.monotonic_ns) * 1e-9;
}

struct metric_result {
  json summary;
  std::vector<double> timeline;
};

metric_result gauge_metric(const std::vector<scrape_round>& rounds, const engine_series& row) {
  metric_result r{json::object(), gauge_values(rounds, row)};
  double sum = 0, max = -std::numeric_limits<double>::infinity();
  std::size_t count = 0;
  for (double v : r.timeline) {
    if (!std::isfinite(v)) continue;
    sum += v;
    max = std::max(max, v);
    ++count;
  }
  r.summary["mean"] = count > 0 ? json(sum / static_cast<double>(count)) : json(nullptr);
  r.summary["max"] = count > 0 ? json(max) : json(nullptr);
  return r;
}

metric_result counter_metric(const std::vector<scrape_round>& rounds, const engine_series& row) {
  const auto steps = counter_increases(rounds, row.series, row.selector);
  metric_result r{json::object(), std::vector<double>(rounds.size(), nan)};
  double total = 0, seconds = 0, max_rate = nan;
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    const double dt = seconds_between(rounds[i - 1], rounds[i]);
    if (!std::isfinite(steps[i]) || dt <= 0) continue;
    total += steps[i] * row.scale;
    seconds += dt;
    r.timeline[i] = steps[i] * row.scale / dt;
    max_rate = std::isfinite(max_rate) ? std::max(max_rate, r.timeline[i]) : r.timeline[i];
  }
  r.summary["increase"] = total;
  r.summary["rate_per_s_mean"] = seconds > 0 ? json(total / seconds) : json(nullptr);
  r.summary["rate_per_s_max"] = number_or_null(max_rate);
  return r;
}

// counter_ratio: num / den; counter_share: num / (num + den).
metric_result ratio_metric(const std::vector<scrape_round>& rounds, const engine_series& row) {
  const auto num = counter_increases(rounds, row.series, row.selector);
  auto den = counter_increases(rounds, row.denominator, row.selector);
  if (row.source == series_source::counter_share) {
    for (std::size_t i = 0; i < den.size(); ++i) den[i] += num[i];
  }
  metric_result r{json::object(), std::vector<double>(rounds.size(), nan)};
  double num_total = 0, den_total = 0, max = nan;
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    if (!std::isfinite(num[i]) || !std::isfinite(den[i])) continue;
    num_total += num[i];
    den_total += den[i];
    if (den[i] <= 0) continue;
    r.timeline[i] = row.scale * num[i] / den[i];
    max = std::isfinite(max) ? std::max(max, r.timeline[i]) : r.timeline[i];
  }
  r.summary["mean"] = den_total > 0 ? json(row.scale * num_total / den_total) : json(nullptr);
  r.summary["max"] = number_or_null(max);
  return r;
}

// A metric of a feature the server does not use over the point: a ratio whose denominator
// never rose (a server without speculative decoding drafts no tokens, yet llama.cpp's
// exports the draft counters at 0) or a gauge never read as a number.
bool feature_unused(const json& summary) {
  if (summary.contains("increase")) return false;  // a counter at 0 is a reading: nothing was done
  return summary.at("mean").is_null() && summary.at("max").is_null();
}

json timeline_array(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(number_or_null(v));
  return out;
}

json raw_series(const std::vector<scrape_round>& rounds, std::size_t urls) {
  std::map<std::string, std::vector<double>> series;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    for (std::size_t e = 0; e < rounds[i].endpoints.size(); ++e) {
      for (const auto& s : rounds[i].endpoints[e].samples) {
        const auto key = urls > 1 ? fmt::format("{}/{}", e, s.series_key()) : s.series_key();
        auto& values = series[key];
        values.resize(rounds.size(), nan);
        values[i] = s.value;
      }
    }
  }
  json out = json::object();
  for (const auto& [key, values] : series) out[key] = timeline_array(values);
  return out;
}

// Whether any answer holds a stage histogram (its _count) or a stage-seconds counter of `engine`.
bool has_stage_data(const std::vector<scrape_round>& rounds, const std::string& engine) {
  std::vector<std::string> names;
  for (const auto& h : engine_histogram_table())
    if (h.engine == engine) names.push_back(std::string(h.series) + "_count");
  for (const auto& c : engine_stage_counter_table())
    if (c.engine == engine) names.emplace_back(c.series);
  for (const auto& round : rounds) {
    for (const auto& e : round.endpoints) {
      for (const auto& sample : e.samples) {
        if (std::find(names.begin(), names.end(), sample.name) != names.end()) return true;
      }
    }
  }
  return false;
}

}  // namespace

json summarize_server_metrics(const std::vector<scrape_round>& rounds, const std::vector<std::string>& urls,
                              std::int64_t origin_monotonic_ns, double interval_s) {
  json out = {{"urls", urls},
              {"interval_s", interval_s},
              {"origin_monotonic_ns", origin_monotonic_ns},
              {"scrapes", rounds.size()}};
  std::size_t failed = 0, rejected = 0;
  std::string error, problem;
  json t_s = json::array();
  for (const auto& round : rounds) {
    t_s.push_back(static_cast<double>(round.monotonic_ns - origin_monotonic_ns) * 1e-9);
    bool round_failed = false;
    for (std::size_t e = 0; e < round.endpoints.size(); ++e) {
      const auto& answer = round.endpoints[e];
      rejected += answer.rejected_lines;
      if (problem.empty() && !answer.first_problem.empty()) problem = answer.first_problem;
      if (answer.ok) continue;
      round_failed = true;
      if (error.empty() && e < urls.size()) error = fmt::format("GET {}: {}", urls[e], answer.error);
    }
    if (round_failed) ++failed;
  }
  out["failed_scrapes"] = failed;
  if (!error.empty()) out["error"] = error;
  out["rejected_lines"] = rejected;
  if (!problem.empty()) out["first_problem"] = problem;
  const auto engine = detect_engine(rounds);
  out["engine"] = engine ? json(*engine) : json(nullptr);
  if (engine) out["stage_data"] = has_stage_data(rounds, *engine);
  json metrics = json::object(), timeline = {{"t_s", t_s}};
  if (engine) {
    const auto rows = rows_of(rounds, *engine);
    for (const auto& metric : server_metrics()) {
      const auto found = rows.find(metric.name);
      if (found == rows.end()) continue;
      const auto& row = *found->second;
      metric_result r;
      switch (row.source) {
        case series_source::gauge_sum:
        case series_source::gauge_mean: r = gauge_metric(rounds, row); break;
        case series_source::counter: r = counter_metric(rounds, row); break;
        case series_source::counter_ratio:
        case series_source::counter_share: r = ratio_metric(rounds, row); break;
      }
      if (feature_unused(r.summary)) continue;
      r.summary["unit"] = metric.unit;
      r.summary["series"] = row.source == series_source::counter_share
                                ? fmt::format("{0} / ({0} + {1})", row.series, row.denominator)
                            : row.denominator[0] != '\0'
                                ? fmt::format("{} / {}", row.series, row.denominator)
                                : std::string(row.series) +
                                      (row.selector[0] != '\0' ? fmt::format("{{{}}}", row.selector) : std::string());
      metrics[metric.name] = std::move(r.summary);
      timeline[metric.name] = timeline_array(r.timeline);
    }
  }
  out["metrics"] = std::move(metrics);
  out["timeline"] = std::move(timeline);
  out["raw"] = {{"t_s", t_s}, {"series", raw_series(rounds, urls.size())}};
  return out;
}

std::map<std::string, double> server_metric_values(const json& summary) {
  std::map<std::string, double> values;
  if (!summary.is_object() || !summary.contains("metrics")) return values;
  for (const auto& [name, m] : summary.at("metrics").items()) {
    const auto put = [&](const char* field, const std::string& key) {
      if (m.contains(field) && m.at(field).is_number()) values["server_" + name + key] = m.at(field).get<double>();
    };
    put("mean", "_mean");
    put("max", "_max");
    put("increase", "_increase");
    put("rate_per_s_mean", "_per_s");
  }
  return values;
}

}  // namespace ironbench::serve
