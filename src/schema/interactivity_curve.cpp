#include "schema/interactivity_curve.hpp"

#include <algorithm>
#include <cmath>

namespace ironbench::schema {

std::optional<double> interactivity_of_tpot_ms(double tpot_ms) {
  if (!std::isfinite(tpot_ms) || !(tpot_ms > 0)) return std::nullopt;
  return 1000.0 / tpot_ms;
}

std::vector<curve_point> pareto_frontier(const std::vector<curve_point>& points) {
  std::vector<curve_point> usable;
  for (const auto& p : points) {
    if (std::isfinite(p.interactivity) && std::isfinite(p.throughput) && p.interactivity >= 0 && p.throughput >= 0) {
      usable.push_back(p);
    }
  }
  // Highest interactivity first (then highest throughput): a point is on the frontier when its
  // throughput beats every point seen before it, all of which have at least its interactivity.
  std::stable_sort(usable.begin(), usable.end(), [](const curve_point& a, const curve_point& b) {
    if (a.interactivity != b.interactivity) return a.interactivity > b.interactivity;
    return a.throughput > b.throughput;
  });
  std::vector<curve_point> frontier;
  for (const auto& p : usable) {
    if (frontier.empty() || p.throughput > frontier.back().throughput) frontier.push_back(p);
  }
  std::reverse(frontier.begin(), frontier.end());
  return frontier;
}

frontier_reading read_frontier(const std::vector<curve_point>& frontier, double interactivity) {
  frontier_reading r;
  r.interactivity = interactivity;
  if (frontier.empty()) return r;
  if (interactivity < frontier.front().interactivity) {
    r.status = frontier_reading::kind::below_range;
    r.low = r.high = frontier.front();
    return r;
  }
  if (interactivity > frontier.back().interactivity) {
    r.status = frontier_reading::kind::above_range;
    r.low = r.high = frontier.back();
    return r;
  }
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const auto& p = frontier[i];
    if (p.interactivity == interactivity) {
      r.status = frontier_reading::kind::measured;
      r.low = r.high = p;
      r.throughput = p.throughput;
      return r;
    }
    if (i + 1 < frontier.size() && interactivity < frontier[i + 1].interactivity) {
      const auto& q = frontier[i + 1];
      const double share = (interactivity - p.interactivity) / (q.interactivity - p.interactivity);
      r.status = frontier_reading::kind::interpolated;
      r.low = p;
      r.high = q;
      r.throughput = p.throughput + share * (q.throughput - p.throughput);
      return r;
    }
  }
  return r;  // not reached: the range checks above cover every finite value
}

const char* to_string(frontier_reading::kind kind) {
  switch (kind) {
    case frontier_reading::kind::measured: return "measured";
    case frontier_reading::kind::interpolated: return "interpolated";
    case frontier_reading::kind::below_range: return "below_range";
    case frontier_reading::kind::above_range: return "above_range";
    case frontier_reading::kind::no_frontier: break;
  }
  return "no_frontier";
}

namespace {

bool is_valid_serve_point(const core::case_result& c) {
  return c.benchmark == "serve" && c.status == core::case_status::valid;
}

std::optional<double> interactivity_of_case(const core::case_result& c) {
  if (const auto* m = c.find_metric(interactivity_key::median)) return m->value;
  if (const auto* m = c.find_metric("median_tpot_ms")) return interactivity_of_tpot_ms(m->value);
  return std::nullopt;
}

}  // namespace

std::string curve_throughput_metric(const std::vector<const core::case_result*>& cases) {
  bool any = false;
  for (const auto* c : cases) {
    if (!is_valid_serve_point(*c) || !interactivity_of_case(*c)) continue;
    any = true;
    if (c->find_metric(interactivity_key::output_per_gpu) == nullptr) return "output_throughput";
  }
  return any ? interactivity_key::output_per_gpu : "output_throughput";
}

std::vector<curve_point> serve_curve_points(const std::vector<const core::case_result*>& cases,
                                            const std::string& throughput_metric) {
  std::vector<curve_point> points;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = *cases[i];
    if (!is_valid_serve_point(c)) continue;
    const auto x = interactivity_of_case(c);
    const auto* y = c.find_metric(throughput_metric);
    if (x && y != nullptr && std::isfinite(*x) && std::isfinite(y->value)) points.push_back({*x, y->value, i});
  }
  return points;
}

json reading_json(const frontier_reading& reading) {
  json out = {{"interactivity", reading.interactivity},
              {"status", to_string(reading.status)},
              {"interpolated", reading.status == frontier_reading::kind::interpolated}};
  if (reading.throughput) out["throughput"] = *reading.throughput;
  json from = json::array();
  const auto add = [&](const curve_point& p) {
    from.push_back({{"index", p.index}, {"interactivity", p.interactivity}, {"throughput", p.throughput}});
  };
  if (reading.low) add(*reading.low);
  if (reading.high && reading.status == frontier_reading::kind::interpolated) add(*reading.high);
  out["from"] = std::move(from);
  return out;
}

}  // namespace ironbench::schema
