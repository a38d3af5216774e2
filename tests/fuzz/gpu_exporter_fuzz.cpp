// libFuzzer target of the GPU exporters' /metrics reader (DCGM exporter, AMD device metrics
// exporter; scripts/fuzz.sh gpu_exporter builds and runs it with AddressSanitizer and
// UndefinedBehaviorSanitizer). Aborts when a reading is malformed; a crash or sanitizer report
// is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "serve/metrics/gpu_exporter_metrics.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = ironbench::serve::parse_gpu_exporter(text);
  std::set<std::string> keys;
  for (const auto& g : r.gpus) {
    if (g.exporter != "dcgm" && g.exporter != "amd") std::abort();
    if (!keys.insert(g.key).second) std::abort();  // one entry per GPU
    if (g.key.size() > size || g.uuid.size() > size || g.model.size() > size) std::abort();
    for (const auto& v : {g.power_w, g.energy_j, g.utilization_percent, g.memory_used_bytes, g.memory_free_bytes,
                          g.sm_clock_mhz, g.memory_clock_mhz}) {
      if (v && !std::isfinite(*v)) std::abort();  // non-finite samples and overflowing sums are dropped
    }
  }
  if ((r.rejected_lines == 0) != r.first_problem.empty()) std::abort();
  return 0;
}
