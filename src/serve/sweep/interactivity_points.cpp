#include "serve/sweep/interactivity_points.hpp"

#include <fmt/format.h>

#include "core/statistics.hpp"
#include "schema/interactivity_curve.hpp"

namespace ironbench::serve {
namespace {

namespace ikey = schema::interactivity_key;

// "max concurrency 8, rate inf" of a serve case.
std::string curve_point_label(const core::case_result& c) {
  const auto text = [&](const char* name) {
    return c.params.contains(name) ? core::to_string(c.params.at(name)) : std::string("?");
  };
  const auto concurrency = text("max_concurrency");
  return fmt::format("max concurrency {}, rate {}", concurrency == "0" ? "unlimited" : concurrency,
                     text("request_rate"));
}

json curve_point_json(const schema::curve_point& p, const std::vector<core::case_result>& cases) {
  return {{"case", p.index},
          {"interactivity", p.interactivity},
          {"throughput", p.throughput},
          {"label", curve_point_label(cases.at(p.index))}};
}

}  // namespace

json interactivity_metrics(const std::vector<request_record>& records, const json& metrics, std::optional<int> gpus) {
  json out = json::object();
  std::vector<double> tpot_ms;
  for (const auto& r : records) {
    if (r.success && r.output_len > 1) {
      tpot_ms.push_back((r.e2el_s - r.ttft_s) / static_cast<double>(r.output_len - 1) * 1e3);
    }
  }
  if (!tpot_ms.empty()) {
    if (const auto v = schema::interactivity_of_tpot_ms(core::percentile(tpot_ms, 50))) out[ikey::median] = *v;
    if (const auto v = schema::interactivity_of_tpot_ms(core::percentile(tpot_ms, 90))) out[ikey::at_p90_tpot] = *v;
  }
  if (gpus && *gpus > 0) {
    const double n = *gpus;
    out["gpus"] = *gpus;
    out[ikey::output_per_gpu] = metrics.value("output_throughput", 0.0) / n;
    out[ikey::total_per_gpu] = metrics.value("total_token_throughput", 0.0) / n;
  }
  return out;
}

std::vector<core::metric> interactivity_case_metrics(const json& metrics) {
  std::vector<core::metric> out;
  const auto add = [&](const char* name, const char* unit, const char* description) {
    if (metrics.contains(name) && metrics.at(name).is_number()) {
      out.push_back({name, metrics.at(name).get<double>(), unit, description});
    }
  };
  add(ikey::median, ikey::unit, "1000 / median TPOT (ms): the median user's tokens/s");
  add(ikey::at_p90_tpot, ikey::unit, "1000 / p90 TPOT (ms): 90% of requests streamed at least this fast");
  add(ikey::output_per_gpu, "tok/s", "output_throughput / --gpus");
  add(ikey::total_per_gpu, "tok/s", "total_token_throughput / --gpus");
  return out;
}

interactivity_outcome interactivity_curve(const std::vector<core::case_result>& cases, std::optional<int> gpus,
                                          std::optional<double> at_interactivity) {
  interactivity_outcome out;
  std::vector<const core::case_result*> all;
  for (const auto& c : cases) all.push_back(&c);
  const auto metric = schema::curve_throughput_metric(all);
  const auto points = schema::serve_curve_points(all, metric);
  const bool per_gpu = metric == ikey::output_per_gpu;
  const auto unit = per_gpu ? std::string("output tok/s per GPU") : std::string("output tok/s (the endpoint's)");
  if (points.empty()) {
    if (at_interactivity) {
      out.console =
          fmt::format("--at-interactivity {:g}: no valid point has a TPOT to read it from\n", *at_interactivity);
    }
  } else {
    const auto frontier = schema::pareto_frontier(points);
    json settings = {{"interactivity", ikey::median},
                     {"throughput", metric},
                     {"gpus", gpus ? json(*gpus) : json(nullptr)},
                     {"points", json::array()},
                     {"frontier", json::array()}};
    for (const auto& p : points) settings["points"].push_back(curve_point_json(p, cases));
    for (const auto& p : frontier) settings["frontier"].push_back(curve_point_json(p, cases));
    std::string text = fmt::format(
        "Throughput vs interactivity: {} of {} points on the Pareto frontier ({} against median tok/s/user{})\n",
        frontier.size(), points.size(), unit, per_gpu ? fmt::format(", {} GPU{}", *gpus, *gpus == 1 ? "" : "s") : "");
    for (const auto& p : frontier) {
      text += fmt::format("  {:>10.2f} tok/s/user  {:>12.2f} {}  ({})\n", p.interactivity, p.throughput,
                          per_gpu ? "tok/s/GPU" : "tok/s", curve_point_label(cases.at(p.index)));
    }
    if (at_interactivity) {
      const auto reading = schema::read_frontier(frontier, *at_interactivity);
      auto at = schema::reading_json(reading);
      at["throughput_metric"] = metric;
      core::case_result c;
      c.benchmark = "serve_at_interactivity";
      c.device = cases.at(points.front().index).device;
      c.params.set("interactivity", *at_interactivity);
      c.param_units["interactivity"] = ikey::unit;
      using kind = schema::frontier_reading::kind;
      const auto& low = *reading.low;
      if (reading.status == kind::interpolated) {
        const auto& high = *reading.high;
        const auto from =
            fmt::format("interpolated between {} ({:.2f} tok/s/user, {:.2f}) and {} ({:.2f} tok/s/user, {:.2f})",
                        curve_point_label(cases.at(low.index)), low.interactivity, low.throughput,
                        curve_point_label(cases.at(high.index)), high.interactivity, high.throughput);
        c.metrics.push_back({metric, *reading.throughput, "tok/s", from});
        c.notes["from"] = from;
        text += fmt::format("At {:g} tok/s/user: {:.2f} {} ({})\n", *at_interactivity, *reading.throughput, unit, from);
      } else if (reading.status == kind::measured) {
        const auto from = fmt::format("measured at {}", curve_point_label(cases.at(low.index)));
        c.metrics.push_back({metric, *reading.throughput, "tok/s", from});
        c.notes["from"] = from;
        text += fmt::format("At {:g} tok/s/user: {:.2f} {} ({})\n", *at_interactivity, *reading.throughput, unit, from);
      } else {
        c.status = core::case_status::skipped;
        c.reason = fmt::format(
            "{:g} tok/s/user is outside the frontier's range, {:.2f} to {:.2f} tok/s/user: not extrapolated",
            *at_interactivity, frontier.front().interactivity, frontier.back().interactivity);
        text += fmt::format("At {:g} tok/s/user: none ({})\n", *at_interactivity, c.reason);
      }
      c.notes["interpolated"] = reading.status == kind::interpolated ? "true" : "false";
      settings["at"] = std::move(at);
      out.at_case = std::move(c);
    }
    out.settings = std::move(settings);
    out.console = std::move(text);
  }
  return out;
}

}  // namespace ironbench::serve
