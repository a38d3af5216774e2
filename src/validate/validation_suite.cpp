#include "validate/validation_suite.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "benchmarks/stream.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "core/units.hpp"

namespace ironbench::validate {
namespace {

struct level_plan {
  std::int64_t cpu_gemm_size;
  std::int64_t gpu_gemm_size;
  std::vector<std::string> cpu_dtypes;
  std::vector<std::string> gpu_dtypes;
  std::string stream_kernels;
  std::string cpu_stream_size;  ///< empty: the benchmark's default (arrays of at least 4x the LLC)
  std::string gpu_stream_size;  ///< empty: the benchmark's default sizes
};

const level_plan& plan_of(level l) {
  // quick: CPU arrays of 512 MiB (three arrays, 1.5 GiB: past the last-level cache of most
  // machines, though not the 4x of the STREAM rule on the largest), to stay within a minute.
  static const level_plan quick{1024, 4096, {"fp64", "fp32"}, {"bf16", "fp16", "fp8"}, "triad", "512M", "1G"};
  static const level_plan standard{2048,         8192, {"fp64", "fp32"}, {"fp32", "tf32", "bf16", "fp16", "fp8"},
                                   "copy,triad", "",   "1G,4G"};
  static const level_plan long_run{
      2048, 16384, {"fp64", "fp32", "bf16"}, {"fp32", "tf32", "bf16", "fp16", "fp8"}, "copy,mul,add,triad,dot,nstream",
      "",   ""};
  switch (l) {
    case level::quick: return quick;
    case level::standard: return standard;
    case level::long_run: return long_run;
    case level::burn_in: return quick;  // burn-in plans its own workloads (burn_in.cpp)
  }
  return quick;
}

// The values of `wanted` that `device`'s axis `name` of `bench` accepts, in its order.
std::vector<std::string> accepted(const core::benchmark& bench, const core::device_info& device,
                                  const std::string& name, const std::vector<std::string>& wanted) {
  for (const auto& a : bench.axes(device)) {
    if (a.name != name) continue;
    std::vector<std::string> out;
    for (const auto& w : wanted) {
      if (a.choices.empty() || std::find(a.choices.begin(), a.choices.end(), w) != a.choices.end()) out.push_back(w);
    }
    return out;
  }
  return {};
}

core::axis_override override_of(const std::string& text) { return core::parse_axis_override(text); }

}  // namespace

level parse_level(const std::string& text) {
  if (text == "quick") return level::quick;
  if (text == "standard") return level::standard;
  if (text == "long") return level::long_run;
  if (text == "burn-in") return level::burn_in;
  throw usage_error(fmt::format("--level takes quick, standard, long or burn-in, not '{}'", text));
}

const char* to_string(level l) {
  switch (l) {
    case level::quick: return "quick";
    case level::standard: return "standard";
    case level::long_run: return "long";
    case level::burn_in: return "burn-in";
  }
  return "quick";
}

core::measurement_settings settings_of(level l) {
  core::measurement_settings s;
  s.target_cv = 0.02;
  switch (l) {
    case level::quick:
      s.warmup_s = 0.05;
      s.min_time_s = 0.2;
      s.max_time_s = 1.5;
      break;
    case level::standard:
      s.warmup_s = 0.2;
      s.min_time_s = 1;
      s.max_time_s = 5;
      break;
    case level::long_run:
      s.warmup_s = 1;
      s.min_time_s = 5;
      s.max_time_s = 20;
      break;
    case level::burn_in: break;  // each interval sets its own times (burn_in.cpp)
  }
  return s;
}

std::int64_t cpu_gemm_size(std::int64_t base, int threads) {
  std::int64_t size = base;
  while (size < 8192 && threads >= 8 * (size / 1024) * (size / 1024)) size *= 2;
  return size;
}

std::int64_t cpu_stream_size(std::int64_t wanted, std::uint64_t memory_bytes) {
  constexpr std::int64_t smallest = std::int64_t{64} << 20;
  std::int64_t size = wanted;
  while (size > smallest && memory_bytes > 0 &&
         3 * static_cast<double>(size) > 0.8 * static_cast<double>(memory_bytes)) {
    size /= 2;
  }
  return std::max(size, std::min(wanted, smallest));
}

std::vector<core::planned_case> plan_validation(level l, const core::registry& benchmarks,
                                                const std::vector<core::device_info>& devices) {
  const auto& p = plan_of(l);
  const auto& gemm = benchmarks.get("gemm");
  const auto& stream = benchmarks.get("stream");
  std::vector<core::planned_case> plan;
  for (const auto& device : devices) {
    const bool gpu = core::is_gpu(device);
    core::run_options options;
    options.settings = settings_of(l);
    const auto dtypes = accepted(gemm, device, "dtype", gpu ? p.gpu_dtypes : p.cpu_dtypes);
    const std::int64_t size =
        gpu ? p.gpu_gemm_size : cpu_gemm_size(p.cpu_gemm_size, device.properties.value("threads", 1));
    if (!dtypes.empty() && gemm.unsupported_reason(device).empty()) {
      options.benchmarks.emplace_back("gemm");
      for (const char* dim : {"M", "N", "K"})
        options.overrides.push_back(override_of(fmt::format("gemm:{}={}", dim, size)));
      options.overrides.push_back(override_of("gemm:dtype=" + join(dtypes, ",")));
    }
    if (stream.unsupported_reason(device).empty()) {
      options.benchmarks.emplace_back("stream");
      options.overrides.push_back(override_of("stream:kernel=" + p.stream_kernels));
      std::string size = gpu ? p.gpu_stream_size : p.cpu_stream_size;
      if (!gpu) {
        const auto wanted = size.empty() ? benchmarks::default_stream_array_bytes(
                                               device.properties.value("last_level_cache_bytes", std::int64_t{0}))
                                         : parse_size(size, "stream size");
        size = std::to_string(cpu_stream_size(wanted, device.memory_bytes));
      }
      if (!size.empty()) options.overrides.push_back(override_of("stream:size=" + size));
    }
    if (options.benchmarks.empty()) continue;
    auto part = core::plan_run(benchmarks, {device}, options);
    plan.insert(plan.end(), part.begin(), part.end());
  }
  return plan;
}

}  // namespace ironbench::validate
