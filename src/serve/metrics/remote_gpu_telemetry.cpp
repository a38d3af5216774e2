#include "serve/metrics/remote_gpu_telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "serve/metrics/gpu_exporter_metrics.hpp"
#include "serve/point_energy.hpp"

namespace ironbench::serve {
namespace {

struct statistic {
  double sum = 0, min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  std::size_t count = 0;
  void add(const std::optional<double>& v) {
    if (!v || !std::isfinite(*v)) return;
    sum += *v;
    min = std::min(min, *v);
    max = std::max(max, *v);
    ++count;
  }
  [[nodiscard]] json mean() const { return count > 0 ? json(sum / static_cast<double>(count)) : json(nullptr); }
};

struct gpu_history {
  exporter_gpu identity;
  std::vector<energy_sample> samples;
  statistic power, utilization, used, free, sm_clock, memory_clock;
};

}  // namespace

remote_gpu_telemetry summarize_remote_gpus(const std::vector<scrape_round>& rounds,
                                           const std::vector<std::string>& urls, std::int64_t origin_monotonic_ns,
                                           double duration_s, double interval_s, double output_tokens) {
  remote_gpu_telemetry out;
  json summary = {{"urls", urls}, {"interval_s", interval_s}, {"scrapes", rounds.size()}};
  std::size_t failed = 0;
  std::string error;
  std::vector<std::string> order;
  std::map<std::string, gpu_history> gpus;
  for (const auto& round : rounds) {
    const double t = static_cast<double>(round.monotonic_ns - origin_monotonic_ns) * 1e-9;
    bool round_failed = false;
    for (std::size_t e = 0; e < round.endpoints.size(); ++e) {
      const auto& answer = round.endpoints[e];
      if (!answer.ok) {
        round_failed = true;
        if (error.empty() && e < urls.size()) error = fmt::format("GET {}: {}", urls[e], answer.error);
        continue;
      }
      for (auto& g : read_gpu_exporter(answer.samples).gpus) {
        const auto key = urls.size() > 1 ? fmt::format("{}:{}", e, g.key) : g.key;
        auto [it, added] = gpus.try_emplace(key);
        if (added) order.push_back(key);
        auto& h = it->second;
        h.samples.push_back({t, g.power_w, g.energy_j});
        h.power.add(g.power_w);
        h.utilization.add(g.utilization_percent);
        h.used.add(g.memory_used_bytes);
        h.free.add(g.memory_free_bytes);
        h.sm_clock.add(g.sm_clock_mhz);
        h.memory_clock.add(g.memory_clock_mhz);
        h.identity = std::move(g);
      }
    }
    failed += round_failed ? 1 : 0;
  }
  summary["failed_scrapes"] = failed;
  if (!error.empty()) summary["error"] = error;
  json gpus_json = json::object();
  std::vector<energy_estimate> estimates;
  double power = 0, utilization = 0, memory = 0;
  std::size_t with_power = 0, with_utilization = 0, with_memory = 0;
  for (const auto& key : order) {
    const auto& h = gpus.at(key);
    const auto& id = h.identity;
    json g = {{"exporter", id.exporter}, {"hostname", id.hostname}, {"index", id.index},
              {"uuid", id.uuid},         {"model", id.model},       {"samples", h.samples.size()}};
    g["power_w_mean"] = h.power.mean();
    g["utilization_percent_mean"] = h.utilization.mean();
    g["memory_used_max_bytes"] = h.used.count > 0 ? json(h.used.max) : json(nullptr);
    g["memory_free_min_bytes"] = h.free.count > 0 ? json(h.free.min) : json(nullptr);
    g["sm_clock_mhz_mean"] = h.sm_clock.mean();
    g["memory_clock_mhz_mean"] = h.memory_clock.mean();
    const auto e = estimate_energy(h.samples, 0, duration_s, 2 * interval_s);
    json energy = {{"energy_j", e.energy_j}, {"covered_energy_j", e.covered_energy_j}, {"source", e.source},
                   {"coverage", e.coverage}, {"largest_gap_s", e.largest_gap_s},       {"valid", e.valid}};
    if (!e.valid) energy["invalid_reason"] = e.invalid_reason;
    g["energy"] = std::move(energy);
    estimates.push_back(e);
    gpus_json[key] = std::move(g);
    if (h.power.count > 0) {
      power += h.power.sum / static_cast<double>(h.power.count);
      ++with_power;
    }
    if (h.utilization.count > 0) {
      utilization += h.utilization.sum / static_cast<double>(h.utilization.count);
      ++with_utilization;
    }
    if (h.used.count > 0) {
      memory += h.used.max;
      ++with_memory;
    }
  }
  summary["gpus"] = std::move(gpus_json);
  const auto n = order.size();
  if (n == 0) {
    if (error.empty()) summary["error"] = "no GPU series of the DCGM or AMD exporter in the answers";
    out.summary = std::move(summary);
    return out;
  }
  if (with_power == n) out.metrics.push_back({"gpu_power_w", power, "W", "the GPUs' mean power, added (exporter)"});
  if (with_utilization == n) {
    out.metrics.push_back({"gpu_utilization_percent", utilization / static_cast<double>(n), "%",
                           "the GPUs' mean utilisation (exporter)"});
  }
  if (with_memory == n) {
    out.metrics.push_back({"gpu_memory_used_max_gib", memory / (1024.0 * 1024 * 1024), "GiB",
                           "the GPUs' highest memory use, added (exporter)"});
  }
  add_energy_verdict(estimates, output_tokens, summary, out.metrics);
  out.summary = std::move(summary);
  return out;
}

std::string remote_gpu_text(const json& summary) {
  if (!summary.is_object()) return {};
  const auto& gpus = summary.at("gpus");
  if (gpus.empty()) {
    return fmt::format("GPU exporter: none ({})\n", summary.value("error", std::string("no answer")));
  }
  std::string out = fmt::format("{:-^50}\n", fmt::format(" GPU exporter ({} GPUs) ", gpus.size()));
  if (!summary.contains("energy_valid")) return out;
  const double coverage = 100 * summary.at("energy_coverage").get<double>();
  const double gap = summary.at("energy_largest_gap_s").get<double>();
  if (summary.at("energy_valid").get<bool>()) {
    out += fmt::format("{:<40}{:.1f} ({}, {:.0f}% covered, largest gap {:.2f} s)\n",
                       "GPU energy (J):", summary.at("energy_j").get<double>(),
                       summary.at("energy_source").get<std::string>(), coverage, gap);
    if (summary.contains("joules_per_output_token")) {
      out += fmt::format("{:<40}{:.4f}\n",
                         "GPU energy per output token (J):", summary.at("joules_per_output_token").get<double>());
    }
  } else {
    out += fmt::format("{:<40}INVALID: {}\n", "GPU energy:", summary.at("energy_invalid_reason").get<std::string>());
  }
  return out;
}

}  // namespace ironbench::serve
