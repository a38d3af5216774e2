#include "serve/sweep/slo_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "serve/measures/latency_metrics.hpp"

namespace ironbench::serve {
namespace {

// The percentile of "p99" / "p99.9", or nullopt for median and mean.
std::optional<double> percentile_of(const std::string& statistic) {
  if (statistic.size() < 2 || statistic[0] != 'p') return std::nullopt;
  return parse_number(statistic.substr(1), "--slo");
}

std::string metric_key(const std::string& statistic, const std::string& metric) {
  if (const auto p = percentile_of(statistic)) return percentile_key(*p, metric);
  return fmt::format("{}_{}_ms", statistic, metric);
}

}  // namespace

std::string slo_spec::text() const {
  std::vector<std::string> parts;
  for (const auto& l : limits) parts.push_back(fmt::format("{} {} <= {:g} ms", statistic, l.metric, l.max_ms));
  return join(parts, ", ");
}

slo_spec parse_slo(const std::string& text) {
  slo_spec slo;
  for (const auto& item : split_non_empty(text)) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) {
      const bool statistic = item == "median" || item == "mean" ||
                             (item.size() > 1 && item[0] == 'p' && std::isdigit(static_cast<unsigned char>(item[1])));
      if (!statistic) {
        throw usage_error(
            fmt::format("--slo: '{}' is neither METRIC:MS nor a statistic (p99, p90, median, mean)", item));
      }
      const auto p = percentile_of(item);
      if (p && !(*p > 0 && *p < 100)) throw usage_error("--slo: a percentile must be between 0 and 100");
      slo.statistic = item;
      continue;
    }
    slo_limit limit{item.substr(0, colon), 0};
    const auto* metric = find_latency_metric(limit.metric);
    if (!metric || !metric->slo) {
      throw usage_error(
          fmt::format("--slo: unknown metric '{}' ({})", limit.metric, latency_metric_names(metric_use::slo, ", ")));
    }
    limit.max_ms = parse_number(item.substr(colon + 1), "--slo");
    if (!(limit.max_ms > 0)) throw usage_error(fmt::format("--slo: the limit of {} must be positive", limit.metric));
    slo.limits.push_back(limit);
  }
  if (slo.limits.empty()) throw usage_error("--slo needs at least one METRIC:MS (e.g. ttft:500,tpot:30)");
  return slo;
}

void require_slo_metrics(const slo_spec& slo, metric_selection& selection) {
  for (const auto& l : slo.limits) {
    if (std::find(selection.metrics.begin(), selection.metrics.end(), l.metric) == selection.metrics.end()) {
      selection.metrics.push_back(l.metric);
    }
  }
  if (const auto p = percentile_of(slo.statistic)) {
    if (std::find(selection.percentiles.begin(), selection.percentiles.end(), *p) == selection.percentiles.end()) {
      selection.percentiles.push_back(*p);
    }
  }
}

slo_verdict judge_slo(const json& metrics, const slo_spec& slo) {
  const auto failed = metrics.value("failed", 0.0);
  if (failed > 0) return {false, fmt::format("{:g} request(s) failed", failed)};
  if (metrics.value("completed", 0.0) <= 0) return {false, "no request completed"};
  for (const auto& l : slo.limits) {
    const auto key = metric_key(slo.statistic, l.metric);
    if (!metrics.contains(key)) return {false, fmt::format("the point has no {}", key)};
    const double value = metrics.at(key).get<double>();
    if (value > l.max_ms)
      return {false, fmt::format("{} {} {:.2f} ms > {:g} ms", slo.statistic, l.metric, value, l.max_ms)};
  }
  return {true, ""};
}

search_axis parse_search_axis(const std::string& text) {
  if (text == "rate") return search_axis::rate;
  if (text == "concurrency") return search_axis::concurrency;
  throw usage_error(fmt::format("--search takes rate or concurrency, not '{}'", text));
}

void check_search_settings(const search_settings& s) {
  if (!(s.start > 0) || !(s.max >= s.start) || std::isinf(s.max)) {
    throw usage_error("--search-start must be positive and at most --search-max");
  }
  if (!(s.precision > 0) || s.max_probes < 2) {
    throw usage_error("--search-precision must be positive and --search-max-probes at least 2");
  }
  if (!(s.probe_duration_s > 0) || std::isinf(s.probe_duration_s)) {
    throw usage_error("--search-probe-duration must be positive");
  }
  if (s.min_probe_requests < 1) throw usage_error("--search-min-requests must be at least 1");
  if (s.estimate_concurrency < 1) throw usage_error("--search-estimate-concurrency must be at least 1");
  if (!(s.estimate_duration_s > 0) || std::isinf(s.estimate_duration_s)) {
    throw usage_error("--search-estimate-duration must be positive");
  }
}

const char* to_string(search_verdict verdict) {
  switch (verdict) {
    case search_verdict::found: return "found";
    case search_verdict::missed: return "missed";
    case search_verdict::unjudged: return "could not judge";
    case search_verdict::interrupted: return "interrupted";
  }
  return "?";
}

search_result search_limit(const search_settings& s, const std::function<probe_outcome(double)>& probe) {
  search_result r;
  const bool whole = s.axis == search_axis::concurrency;
  const double lowest = whole ? 1 : s.start / 64;
  const auto run = [&](double load) {
    r.probes.push_back({load, probe(load)});
    const auto& o = r.probes.back().outcome;
    if (!o.measured && !o.interrupted) r.lowest_unjudged = std::min(load, r.lowest_unjudged.value_or(load));
    return o;
  };
  // The verdict once the search stops: a load met, or the lowest load probed was judged (and
  // missed), or it could not be judged.
  const auto finish = [&](std::string ended) {
    r.ended = std::move(ended);
    if (r.best) {
      r.verdict = search_verdict::found;
    } else {
      const auto low = std::min_element(r.probes.begin(), r.probes.end(),
                                        [](const search_step& a, const search_step& b) { return a.load < b.load; });
      r.verdict = low != r.probes.end() && low->outcome.measured ? search_verdict::missed : search_verdict::unjudged;
    }
    return r;
  };
  const auto interrupted = [&](const probe_outcome& o) {
    r.ended = fmt::format("interrupted: {}", o.why);
    r.verdict = search_verdict::interrupted;
    return r;
  };
  // The lowest load above the best known not to meet the objectives or not to be judged.
  const auto ceiling = [&] {
    if (r.lowest_failing && r.lowest_unjudged) return std::min(*r.lowest_failing, *r.lowest_unjudged);
    return r.lowest_failing ? *r.lowest_failing : *r.lowest_unjudged;
  };
  const auto out_of_probes = [&] { return static_cast<int>(r.probes.size()) >= s.max_probes; };
  double load = whole ? std::max(1.0, std::round(s.start)) : s.start;
  // Bracket: up by doubling while the objectives hold, down by halving while they do not (or
  // while the probes cannot be judged).
  for (;;) {
    const auto o = run(load);
    if (o.interrupted) return interrupted(o);
    if (o.measured && o.met) {
      r.best = load;
      if (r.lowest_failing || r.lowest_unjudged) break;
      if (load >= s.max) return finish("every probe up to --search-max met the objectives");
      load = std::min(load * 2, s.max);
    } else {
      if (o.measured) r.lowest_failing = std::min(load, r.lowest_failing.value_or(load));
      if (r.best) break;
      const double lower = whole ? std::floor(load / 2) : load / 2;
      if (lower < lowest) {
        return finish(o.measured ? fmt::format("even {:g} did not meet the objectives", load)
                                 : fmt::format("even {:g} could not be judged: {}", load, o.why));
      }
      load = lower;
    }
    if (out_of_probes()) return finish("--search-max-probes reached before the limit was bracketed");
  }
  // Bisect between the best load and the ceiling above it.
  for (;;) {
    const double lo = *r.best, hi = ceiling();
    const bool blind = !r.lowest_failing || hi < *r.lowest_failing;  // the ceiling could not be judged
    if (whole ? hi - lo <= 1 : hi <= lo * (1 + s.precision)) {
      const auto within = whole ? std::string("bracketed between adjacent concurrencies")
                                : fmt::format("bracketed within {:g}%", 100 * s.precision);
      return finish(blind ? fmt::format("{}; the load above could not be judged", within) : within);
    }
    if (out_of_probes()) {
      return finish(blind ? "--search-max-probes reached; the lowest load above the answer could not be judged"
                          : "--search-max-probes reached");
    }
    const double mid = whole ? std::floor((lo + hi) / 2) : (lo + hi) / 2;
    const auto o = run(mid);
    if (o.interrupted) return interrupted(o);
    if (o.measured) (o.met ? r.best : r.lowest_failing) = mid;
  }
}

}  // namespace ironbench::serve
