#include "serve/point_energy.hpp"

namespace ironbench::serve {

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
  double energy = 0, power = 0, utilization = 0, memory = 0;
  std::size_t with_energy = 0, with_power = 0, with_utilization = 0, with_memory = 0, counters = 0;
  for (auto& gpu : gpus) {
    const auto seen = gpu.monitor->finish();
    devices[gpu.device] = seen.summary;
    if (seen.series.is_array()) out.series.push_back({{"device", gpu.device}, {"samples", seen.series}});
    bool counter = false;
    if (const auto joules = energy_of(seen, &counter)) {
      energy += *joules;
      ++with_energy;
      counters += counter ? 1 : 0;
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
  if (with_energy == n && energy > 0) {
    out.summary["energy_j"] = energy;
    out.summary["energy_source"] = counters == n ? "energy counter" : "power samples";
    out.metrics.push_back({"gpu_energy_j", energy, "J", "the GPUs' energy over the point"});
    if (output_tokens > 0) {
      out.summary["joules_per_output_token"] = energy / output_tokens;
      out.summary["output_tokens_per_joule"] = output_tokens / energy;
      out.metrics.push_back(
          {"joules_per_output_token", energy / output_tokens, "J/token", "GPU energy per output token"});
      out.metrics.push_back(
          {"output_tokens_per_joule", output_tokens / energy, "tokens/J", "output tokens per joule of GPU energy"});
    }
  }
  return out;
}

}  // namespace ironbench::serve
