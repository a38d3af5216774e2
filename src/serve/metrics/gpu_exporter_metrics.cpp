#include "serve/metrics/gpu_exporter_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace ironbench::serve {
namespace {

using field = std::optional<double> exporter_gpu::*;

// Where one exporter publishes one field of the schema; rows of one exporter and field are
// alternatives in order of preference.
struct exporter_series {
  const char* exporter;
  const char* field_name;
  field member;
  const char* series;
  const char* selector;  ///< "label=v1|v2" the sample must carry, or ""
  double scale;          ///< to W, J, %, bytes, MHz
};

constexpr double mib = 1024.0 * 1024.0;

const std::vector<exporter_series>& table() {
  static const std::vector<exporter_series> rows = {
      // NVIDIA DCGM exporter (default-counters.csv: W, mJ since boot, %, MiB, MHz).
      {"dcgm", "power_w", &exporter_gpu::power_w, "DCGM_FI_DEV_POWER_USAGE", "", 1},
      {"dcgm", "energy_j", &exporter_gpu::energy_j, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "", 1e-3},
      {"dcgm", "utilization_percent", &exporter_gpu::utilization_percent, "DCGM_FI_DEV_GPU_UTIL", "", 1},
      {"dcgm", "memory_used_bytes", &exporter_gpu::memory_used_bytes, "DCGM_FI_DEV_FB_USED", "", mib},
      {"dcgm", "memory_free_bytes", &exporter_gpu::memory_free_bytes, "DCGM_FI_DEV_FB_FREE", "", mib},
      {"dcgm", "sm_clock_mhz", &exporter_gpu::sm_clock_mhz, "DCGM_FI_DEV_SM_CLOCK", "", 1},
      {"dcgm", "memory_clock_mhz", &exporter_gpu::memory_clock_mhz, "DCGM_FI_DEV_MEM_CLOCK", "", 1},
      // AMD device metrics exporter (metricslist.md: W, uJ accumulated, %, MB (taken as MiB), MHz).
      {"amd", "power_w", &exporter_gpu::power_w, "gpu_power_usage", "", 1},
      {"amd", "power_w", &exporter_gpu::power_w, "gpu_package_power", "", 1},
      {"amd", "power_w", &exporter_gpu::power_w, "gpu_average_package_power", "", 1},
      {"amd", "energy_j", &exporter_gpu::energy_j, "gpu_energy_consumed", "", 1e-6},
      {"amd", "utilization_percent", &exporter_gpu::utilization_percent, "gpu_gfx_activity", "", 1},
      {"amd", "memory_used_bytes", &exporter_gpu::memory_used_bytes, "gpu_used_vram", "", mib},
      {"amd", "memory_free_bytes", &exporter_gpu::memory_free_bytes, "gpu_free_vram", "", mib},
      {"amd", "sm_clock_mhz", &exporter_gpu::sm_clock_mhz, "gpu_clock", "clock_type=system|GPU_CLOCK_TYPE_SYSTEM", 1},
      {"amd", "memory_clock_mhz", &exporter_gpu::memory_clock_mhz, "gpu_clock",
       "clock_type=memory|GPU_CLOCK_TYPE_MEMORY", 1},
  };
  return rows;
}

bool selected(const prometheus_sample& s, std::string_view selector) {
  if (selector.empty()) return true;
  const auto equals = selector.find('=');
  const auto* value = s.label(selector.substr(0, equals));
  if (value == nullptr) return false;
  auto choices = selector.substr(equals + 1);
  while (!choices.empty()) {
    const auto bar = choices.find('|');
    if (choices.substr(0, bar) == *value) return true;
    choices = bar == std::string_view::npos ? std::string_view{} : choices.substr(bar + 1);
  }
  return false;
}

std::string label_or(const prometheus_sample& s, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (const auto* v = s.label(key); v != nullptr && !v->empty()) return *v;
  }
  return {};
}

struct running_mean {
  double sum = 0;
  std::size_t count = 0;
};

}  // namespace

exporter_reading read_gpu_exporter(const std::vector<prometheus_sample>& samples) {
  exporter_reading out;
  std::map<std::string, std::size_t> index_of;  // key -> position in out.gpus
  // (gpu position, row) -> the mean of its samples
  std::map<std::pair<std::size_t, std::size_t>, running_mean> values;
  const auto& rows = table();
  for (const auto& s : samples) {
    if (!std::isfinite(s.value) || s.label("GPU_I_ID") != nullptr) continue;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto& row = rows[r];
      if (s.name != row.series || !selected(s, row.selector)) continue;
      const bool dcgm = std::string_view(row.exporter) == "dcgm";
      const auto host = dcgm ? label_or(s, {"Hostname"}) : label_or(s, {"hostname"});
      const auto index = dcgm ? label_or(s, {"gpu"}) : label_or(s, {"gpu_id"});
      const auto key = host.empty() ? index : host + "/" + index;
      auto [it, added] = index_of.try_emplace(key, out.gpus.size());
      if (added) {
        exporter_gpu g;
        g.key = key;
        g.exporter = row.exporter;
        g.hostname = host;
        g.index = index;
        g.uuid = dcgm ? label_or(s, {"UUID"}) : label_or(s, {"gpu_uuid", "serial_number"});
        g.model = dcgm ? label_or(s, {"modelName"}) : label_or(s, {"card_series", "card_model"});
        out.gpus.push_back(std::move(g));
      }
      if (!std::isfinite(s.value * row.scale)) continue;
      auto& m = values[{it->second, r}];
      m.sum += s.value * row.scale;
      ++m.count;
    }
  }
  // Per GPU and field, the first alternative present.
  for (std::size_t g = 0; g < out.gpus.size(); ++g) {
    auto& gpu = out.gpus[g];
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto found = values.find({g, r});
      if (found == values.end() || gpu.exporter != rows[r].exporter || gpu.*(rows[r].member)) continue;
      const double mean = found->second.sum / static_cast<double>(found->second.count);
      if (std::isfinite(mean)) gpu.*(rows[r].member) = mean;  // sums of huge values overflow
    }
  }
  return out;
}

exporter_reading parse_gpu_exporter(std::string_view text) {
  auto parsed = parse_prometheus_text(text);
  auto out = read_gpu_exporter(parsed.samples);
  out.rejected_lines = parsed.rejected_lines;
  out.first_problem = std::move(parsed.first_problem);
  return out;
}

bool is_gpu_exporter_series(std::string_view name) {
  const auto& rows = table();
  return std::any_of(rows.begin(), rows.end(), [&](const exporter_series& row) { return name == row.series; });
}

std::vector<std::string> gpu_exporter_series_names() {
  std::vector<std::string> names;
  for (const auto& row : table()) {
    names.push_back(std::string(row.exporter) + " " + row.field_name + " " + row.series +
                    (row.selector[0] != '\0' ? std::string("{") + row.selector + "}" : std::string()));
  }
  return names;
}

}  // namespace ironbench::serve
