#include "serve/metrics/remote_gpu_telemetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "serve/metrics/gpu_exporter_metrics.hpp"
#include "serve/metrics/point_energy.hpp"

namespace ironbench::serve {

struct remote_gpu_history::gpu {
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

  exporter_gpu identity;
  std::vector<energy_sample> samples;  ///< every stride-th round's, at most samples_per_gpu
  energy_sample last;                  ///< the newest round's, whatever the stride
  std::size_t stride = 1, seen = 0;
  statistic power, utilization, used, free, sm_clock, memory_clock;

  void add(const energy_sample& s) {
    last = s;
    if (seen++ % stride != 0) return;
    samples.push_back(s);
    if (samples.size() < exporter_limits::samples_per_gpu) return;
    // Every other sample dropped: those kept are 2 x stride rounds apart, as the later ones will be.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < samples.size(); i += 2) samples[kept++] = samples[i];
    samples.resize(kept);
    stride *= 2;
  }
};

scrape_settings gpu_exporter_scrape_settings(scrape_settings base) {
  base.max_answer_bytes = exporter_limits::answer_bytes;
  base.max_sample_lines = exporter_limits::sample_lines;
  base.keep_series = [](std::string_view name) { return is_gpu_exporter_series(name); };
  base.refuse_answer = [](const endpoint_scrape& answer) -> std::string {
    const auto gpus = read_gpu_exporter(answer.samples).gpus.size();
    if (gpus <= exporter_limits::gpus_per_url) return {};
    return fmt::format("the answer describes {} GPUs, more than the {} one exporter may", gpus,
                       exporter_limits::gpus_per_url);
  };
  return base;
}

remote_gpu_history::remote_gpu_history(std::vector<std::string> urls, double interval_s)
    : urls_(std::move(urls)), interval_s_(interval_s) {}

remote_gpu_history::~remote_gpu_history() = default;

std::size_t remote_gpu_history::kept_samples(const std::string& key) const {
  const auto it = gpus_.find(key);
  return it == gpus_.end() ? 0 : it->second->samples.size();
}

void remote_gpu_history::add(const scrape_round& round) {
  if (rounds_++ == 0) base_ns_ = round.monotonic_ns;
  const double t = static_cast<double>(round.monotonic_ns - base_ns_) * 1e-9;
  bool round_failed = false;
  const std::size_t most_gpus = exporter_limits::gpus_per_url * std::max<std::size_t>(urls_.size(), 1);
  for (std::size_t e = 0; e < round.endpoints.size(); ++e) {
    const auto& answer = round.endpoints[e];
    const auto url = e < urls_.size() ? urls_[e] : std::string("?");
    if (!answer.ok) {
      round_failed = true;
      if (error_.empty()) error_ = fmt::format("GET {}: {}", url, answer.error);
      continue;
    }
    for (auto& g : read_gpu_exporter(answer.samples).gpus) {
      const auto key = urls_.size() > 1 ? fmt::format("{}:{}", e, g.key) : g.key;
      auto it = gpus_.find(key);
      if (it == gpus_.end()) {
        if (gpus_.size() >= most_gpus) {  // the scraper refuses such answers; rounds given directly are bounded too
          if (error_.empty()) error_ = fmt::format("GET {}: more than {} GPUs; the others left out", url, most_gpus);
          continue;
        }
        it = gpus_.emplace(key, std::make_unique<gpu>()).first;
        order_.push_back(key);
      }
      auto& h = *it->second;
      h.add({t, g.power_w, g.energy_j});
      h.power.add(g.power_w);
      h.utilization.add(g.utilization_percent);
      h.used.add(g.memory_used_bytes);
      h.free.add(g.memory_free_bytes);
      h.sm_clock.add(g.sm_clock_mhz);
      h.memory_clock.add(g.memory_clock_mhz);
      h.identity = std::move(g);
    }
  }
  failed_ += round_failed ? 1 : 0;
}

remote_gpu_telemetry remote_gpu_history::summarize(std::int64_t origin_monotonic_ns, double duration_s,
                                                   double output_tokens) const {
  remote_gpu_telemetry out;
  json summary = {{"urls", urls_}, {"interval_s", interval_s_}, {"scrapes", rounds_}, {"failed_scrapes", failed_}};
  if (!error_.empty()) summary["error"] = error_;
  const double offset = static_cast<double>(base_ns_ - origin_monotonic_ns) * 1e-9;
  json gpus_json = json::object();
  std::vector<energy_estimate> estimates;
  double power = 0, utilization = 0, memory = 0;
  std::size_t with_power = 0, with_utilization = 0, with_memory = 0;
  for (const auto& key : order_) {
    const auto& h = *gpus_.at(key);
    const auto& id = h.identity;
    json g = {{"exporter", id.exporter}, {"hostname", id.hostname}, {"index", id.index},
              {"uuid", id.uuid},         {"model", id.model},       {"samples", h.seen}};
    g["power_w_mean"] = h.power.mean();
    g["utilization_percent_mean"] = h.utilization.mean();
    g["memory_used_max_bytes"] = h.used.count > 0 ? json(h.used.max) : json(nullptr);
    g["memory_free_min_bytes"] = h.free.count > 0 ? json(h.free.min) : json(nullptr);
    g["sm_clock_mhz_mean"] = h.sm_clock.mean();
    g["memory_clock_mhz_mean"] = h.memory_clock.mean();
    auto samples = h.samples;
    if (!samples.empty() && samples.back().t_s != h.last.t_s) samples.push_back(h.last);
    for (auto& sample : samples) sample.t_s += offset;
    auto e = estimate_energy(std::move(samples), 0, duration_s, 2 * interval_s_ * static_cast<double>(h.stride));
    // What no GPU draws is not a GPU's energy (an exporter's wrong unit, or a made-up one).
    const double covered_power = e.covered_s > 0 ? e.covered_energy_j / e.covered_s : 0;
    constexpr double most = exporter_limits::max_gpu_power_w;
    if (covered_power > most || (h.power.count > 0 && h.power.max > most)) {
      e.valid = false;
      e.invalid_reason =
          covered_power > most
              ? fmt::format(
                    "GPU {}: its {} gives {:.4g} J in {:.3g} s, a mean of {:.4g} W, above the {:.0f} W no GPU "
                    "draws: not a GPU's energy",
                    key, e.source, e.covered_energy_j, e.covered_s, covered_power, most)
              : fmt::format("GPU {}: a power of {:.4g} W, above the {:.0f} W no GPU draws: not a GPU's power", key,
                            h.power.max, most);
    }
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
  const auto n = order_.size();
  if (n == 0) {
    if (error_.empty()) summary["error"] = "no GPU series of the DCGM or AMD exporter in the answers";
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

remote_gpu_telemetry summarize_remote_gpus(const std::vector<scrape_round>& rounds,
                                           const std::vector<std::string>& urls, std::int64_t origin_monotonic_ns,
                                           double duration_s, double interval_s, double output_tokens) {
  remote_gpu_history history(urls, interval_s);
  for (const auto& round : rounds) history.add(round);
  return history.summarize(origin_monotonic_ns, duration_s, output_tokens);
}

std::string remote_gpu_text(const json& summary) {
  if (!summary.is_object()) return {};
  const auto& gpus = summary.at("gpus");
  if (gpus.empty()) {
    return fmt::format("GPU exporter: none ({})\n", summary.value("error", std::string("no answer")));
  }
  std::string out =
      fmt::format("{:-^50}\n", fmt::format(" GPU exporter ({} GPU{}) ", gpus.size(), gpus.size() == 1 ? "" : "s"));
  if (summary.contains("error")) out += fmt::format("GPU exporter: {}\n", summary.at("error").get<std::string>());
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
