#include "telemetry/series_summary.hpp"

#include <algorithm>
#include <optional>
#include <set>

namespace ironbench::telemetry {
namespace {

using field = std::optional<double> gpu_sample::*;

struct field_name {
  const char* name;
  field member;
};

const field_name fields[] = {
    {"utilization_percent", &gpu_sample::utilization_percent},
    {"memory_used_bytes", &gpu_sample::memory_used_bytes},
    {"power_w", &gpu_sample::power_w},
    {"energy_j", &gpu_sample::energy_j},
    {"sm_clock_mhz", &gpu_sample::sm_clock_mhz},
    {"memory_clock_mhz", &gpu_sample::memory_clock_mhz},
    {"temperature_c", &gpu_sample::temperature_c},
};

struct mean_max {
  std::size_t count = 0;
  double sum = 0;
  double max = 0;
  double first = 0;
  double last = 0;
};

std::optional<mean_max> statistics_of(const std::vector<gpu_sample>& samples, field member) {
  mean_max m;
  for (const auto& s : samples) {
    if (!(s.*member)) continue;
    const double v = *(s.*member);
    if (m.count == 0) {
      m.max = v;
      m.first = v;
    }
    m.max = std::max(m.max, v);
    m.sum += v;
    m.last = v;
    ++m.count;
  }
  if (m.count == 0) return std::nullopt;
  return m;
}

}  // namespace

json to_json(const gpu_sample& sample) {
  json j = {{"t_s", sample.time_s}};
  for (const auto& f : fields) {
    if (sample.*(f.member)) j[f.name] = *(sample.*(f.member));
  }
  if (sample.throttle_reasons) j["throttle_reasons"] = throttle_reason_names(*sample.throttle_reasons);
  return j;
}

json summarize(const std::vector<gpu_sample>& samples) {
  json j = {{"samples", samples.size()}};
  if (samples.empty()) return j;
  j["duration_s"] = samples.back().time_s - samples.front().time_s;
  for (const auto& f : fields) {
    const auto m = statistics_of(samples, f.member);
    if (!m) continue;
    if (f.member == &gpu_sample::energy_j) {
      j["energy_used_j"] = m->last - m->first;
    } else {
      j[f.name] = {{"mean", m->sum / static_cast<double>(m->count)}, {"max", m->max}};
    }
  }
  std::set<std::string> reasons;
  bool any = false;
  for (const auto& s : samples) {
    if (!s.throttle_reasons) continue;
    any = true;
    for (auto& name : throttle_reason_names(*s.throttle_reasons)) reasons.insert(std::move(name));
  }
  if (any) j["throttle_reasons"] = reasons;
  return j;
}

std::vector<gpu_sample> samples_within(const std::vector<gpu_sample>& samples, double begin_s, double end_s) {
  std::vector<gpu_sample> within;
  for (const auto& s : samples) {
    if (s.time_s >= begin_s && s.time_s <= end_s) within.push_back(s);
  }
  return within;
}

std::vector<core::metric> telemetry_metrics(const std::vector<gpu_sample>& samples) {
  std::vector<core::metric> out;
  if (const auto m = statistics_of(samples, &gpu_sample::sm_clock_mhz)) {
    out.push_back({"sm_clock_mhz", m->sum / static_cast<double>(m->count), "MHz", "mean SM clock during the case"});
  }
  if (const auto m = statistics_of(samples, &gpu_sample::power_w)) {
    out.push_back({"power_w", m->sum / static_cast<double>(m->count), "W", "mean power during the case"});
    out.push_back({"power_max_w", m->max, "W", "highest power sample during the case"});
  }
  if (const auto m = statistics_of(samples, &gpu_sample::temperature_c)) {
    out.push_back({"temperature_max_c", m->max, "C", "highest temperature sample during the case"});
  }
  if (const auto m = statistics_of(samples, &gpu_sample::energy_j)) {
    out.push_back({"energy_j", m->last - m->first, "J", "energy counter difference over the case"});
  }
  return out;
}

}  // namespace ironbench::telemetry
