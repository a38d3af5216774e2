#include "serve/metrics/point_energy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ironbench::serve {
namespace {

// The samples of a monitor's series; the maximum gap is twice their median spacing.
std::vector<energy_sample> series_samples(const json& series, double& max_gap_s) {
  std::vector<energy_sample> out;
  if (!series.is_array()) return out;
  for (const auto& s : series) {
    if (!s.is_object() || !s.contains("t_s") || !s.at("t_s").is_number()) continue;
    energy_sample e{s.at("t_s").get<double>(), {}, {}};
    if (s.contains("power_w") && s.at("power_w").is_number()) e.power_w = s.at("power_w").get<double>();
    if (s.contains("energy_j") && s.at("energy_j").is_number()) e.energy_j = s.at("energy_j").get<double>();
    out.push_back(e);
  }
  std::vector<double> gaps;
  for (std::size_t i = 1; i < out.size(); ++i) gaps.push_back(out[i].t_s - out[i - 1].t_s);
  if (!gaps.empty()) {
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
    max_gap_s = 2 * gaps[gaps.size() / 2];
  }
  return out;
}

}  // namespace

energy_estimate estimate_energy(std::vector<energy_sample> samples, double begin_s, double end_s, double max_gap_s) {
  energy_estimate out;
  out.window_s = std::max(0.0, end_s - begin_s);
  out.max_gap_s = max_gap_s;
  const auto with_counter = std::count_if(
      samples.begin(), samples.end(), [](const energy_sample& s) { return s.energy_j && std::isfinite(*s.energy_j); });
  const bool counter = with_counter >= 2;
  std::erase_if(samples, [&](const energy_sample& s) {
    const auto& v = counter ? s.energy_j : s.power_w;
    return !v || !std::isfinite(*v) || !std::isfinite(s.t_s);
  });
  std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
  if (samples.size() >= 2) out.source = counter ? "energy counter" : "power samples";
  // The longest stretch of the window without a sample, edges included.
  double previous = begin_s;
  for (const auto& s : samples) {
    if (s.t_s <= begin_s) continue;
    const double t = std::min(s.t_s, end_s);
    out.largest_gap_s = std::max(out.largest_gap_s, t - previous);
    previous = t;
    if (s.t_s >= end_s) break;
  }
  out.largest_gap_s = std::max(out.largest_gap_s, end_s - previous);
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const auto &a = samples[i - 1], &b = samples[i];
    const double gap = b.t_s - a.t_s;
    const double from = std::max(a.t_s, begin_s), to = std::min(b.t_s, end_s);
    if (!(gap > 0) || gap > max_gap_s || to <= from) continue;
    if (counter) {
      const double increase = *b.energy_j - *a.energy_j;
      if (increase < 0) continue;  // the counter was reset: this stretch is not known
      out.covered_energy_j += increase * (to - from) / gap;
    } else {
      const auto power_at = [&](double t) { return *a.power_w + (*b.power_w - *a.power_w) * (t - a.t_s) / gap; };
      out.covered_energy_j += (to - from) * (power_at(from) + power_at(to)) / 2;
    }
    out.covered_s += to - from;
  }
  out.coverage = out.window_s > 0 ? std::min(1.0, out.covered_s / out.window_s) : 0;
  out.energy_j = out.coverage > 0 ? out.covered_energy_j / out.coverage : 0;
  out.valid = out.window_s > 0 && out.coverage >= min_energy_coverage;
  if (!out.valid) {
    out.invalid_reason = out.source.empty()
                             ? std::string("fewer than two power or energy samples during the point")
                             : fmt::format(
                                   "samples cover {:.0f}% of the point (at least {:.0f}% wanted: a sample "
                                   "covers up to {:.3g} s); the largest gap is {:.3g} s",
                                   100 * out.coverage, 100 * min_energy_coverage, max_gap_s, out.largest_gap_s);
  }
  return out;
}

void add_energy_verdict(const std::vector<energy_estimate>& gpus, double output_tokens, json& summary,
                        std::vector<core::metric>& metrics) {
  if (gpus.empty()) return;
  double energy = 0, covered = 0, coverage = 1, largest_gap = 0, max_gap = 0;
  std::size_t counters = 0;
  std::string reason;
  for (const auto& g : gpus) {
    energy += g.energy_j;
    covered += g.covered_energy_j;
    coverage = std::min(coverage, g.coverage);
    largest_gap = std::max(largest_gap, g.largest_gap_s);
    max_gap = std::max(max_gap, g.max_gap_s);
    counters += g.source == "energy counter" ? 1 : 0;
    if (!g.valid && reason.empty()) reason = g.invalid_reason;
  }
  const bool valid = reason.empty() && energy > 0;
  if (reason.empty() && !valid) reason = "no energy was measured";
  summary["energy_j"] = energy;
  summary["energy_covered_j"] = covered;
  summary["energy_source"] = counters == gpus.size() ? "energy counter" : "power samples";
  summary["energy_coverage"] = coverage;
  summary["energy_largest_gap_s"] = largest_gap;
  summary["energy_max_gap_s"] = max_gap;
  summary["energy_valid"] = valid;
  if (!valid) {
    summary["energy_invalid_reason"] = reason;
    return;
  }
  metrics.push_back({"gpu_energy_j", energy, "J", "the GPUs' energy over the point"});
  if (output_tokens > 0) {
    summary["joules_per_output_token"] = energy / output_tokens;
    summary["output_tokens_per_joule"] = output_tokens / energy;
    metrics.push_back({"joules_per_output_token", energy / output_tokens, "J/token", "GPU energy per output token"});
    metrics.push_back(
        {"output_tokens_per_joule", output_tokens / energy, "tokens/J", "output tokens per joule of GPU energy"});
  }
}

std::optional<double> energy_of(const core::case_observation& seen, bool* counter) {
  if (seen.summary.is_object() && seen.summary.contains("energy_used_j") &&
      seen.summary.at("energy_used_j").get<double>() > 0) {
    if (counter != nullptr) *counter = true;
    return seen.summary.at("energy_used_j").get<double>();
  }
  if (!seen.series.is_array()) return std::nullopt;
  double joules = 0, last_t = 0, last_w = 0;
  bool have_last = false, any = false;
  for (const auto& s : seen.series) {
    if (!s.contains("power_w") || !s.contains("t_s")) continue;
    const double t = s.at("t_s").get<double>(), w = s.at("power_w").get<double>();
    if (have_last) {
      joules += (t - last_t) * (w + last_w) / 2;
      any = true;
    }
    last_t = t;
    last_w = w;
    have_last = true;
  }
  if (!any) return std::nullopt;
  if (counter != nullptr) *counter = false;
  return joules;
}

point_gpu_telemetry finish_gpu_watch(std::vector<watched_gpu>& gpus, double output_tokens) {
  point_gpu_telemetry out;
  if (gpus.empty()) return out;
  json devices = json::object();
  double power = 0, utilization = 0, memory = 0;
  std::size_t with_power = 0, with_utilization = 0, with_memory = 0;
  std::vector<energy_estimate> estimates;
  for (auto& gpu : gpus) {
    const auto seen = gpu.monitor->finish();
    devices[gpu.device] = seen.summary;
    if (seen.series.is_array()) out.series.push_back({{"device", gpu.device}, {"samples", seen.series}});
    double max_gap = 0;
    const auto samples = series_samples(seen.series, max_gap);
    if (samples.size() >= 2) {
      estimates.push_back(estimate_energy(samples, samples.front().t_s, samples.back().t_s, max_gap));
    } else {
      // No series to judge: the counter's difference (or nothing) over the monitor's whole watch.
      bool counter = false;
      energy_estimate e;
      if (const auto joules = energy_of(seen, &counter)) {
        e.energy_j = e.covered_energy_j = *joules;
        e.coverage = 1;
        e.valid = true;
        e.source = counter ? "energy counter" : "power samples";
      } else {
        e.invalid_reason = fmt::format("{}: no power or energy reading", gpu.device);
      }
      estimates.push_back(e);
    }
    const auto& sum = seen.summary;
    if (!sum.is_object()) continue;
    const auto mean_of = [&](const char* key) -> std::optional<double> {
      if (!sum.contains(key) || !sum.at(key).is_object()) return std::nullopt;
      return sum.at(key).value("mean", 0.0);
    };
    if (const auto w = mean_of("power_w")) {
      power += *w;
      ++with_power;
    }
    if (const auto u = mean_of("utilization_percent")) {
      utilization += *u;
      ++with_utilization;
    }
    if (sum.contains("memory_used_bytes") && sum.at("memory_used_bytes").is_object()) {
      memory += sum.at("memory_used_bytes").value("max", 0.0);
      ++with_memory;
    }
  }
  out.summary["devices"] = devices;
  const auto n = gpus.size();
  if (with_power == n) out.metrics.push_back({"gpu_power_w", power, "W", "the GPUs' mean power, added"});
  if (with_utilization == n) {
    out.metrics.push_back(
        {"gpu_utilization_percent", utilization / static_cast<double>(n), "%", "the GPUs' mean utilisation"});
  }
  if (with_memory == n) {
    out.metrics.push_back(
        {"gpu_memory_used_max_gib", memory / (1024.0 * 1024 * 1024), "GiB", "the GPUs' highest memory use, added"});
  }
  // Energy only where some GPU had a reading: a node whose GPUs report nothing gets no verdict.
  if (std::any_of(estimates.begin(), estimates.end(), [](const energy_estimate& e) { return !e.source.empty(); })) {
    add_energy_verdict(estimates, output_tokens, out.summary, out.metrics);
  }
  return out;
}

}  // namespace ironbench::serve
