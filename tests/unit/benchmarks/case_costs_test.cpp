// The built-in benchmarks' cost models against the per-case wall times of the H200 run of
// 2026-11-28, and the default suite they make: its cases per device and its estimated time on
// one H200 and on eight.
#include "benchmarks/case_costs.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include "benchmarks/builtin.hpp"
#include "benchmarks/stream_gpu_axes.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"
#include "device/stand_in_gpus.hpp"

namespace ironbench::benchmarks {
namespace {

// The lent H200 and its host, as that run recorded them.
core::device_info h200(int count = 1, int index = 0) {
  device::stand_in_spec spec;
  spec.count = count;
  auto d = device::stand_in_gpus(spec).at(static_cast<std::size_t>(index));
  d.properties.erase("stand_in");  // described, not a stand-in: the GPU implementations plan it
  return d;
}

core::device_info h200_host() {
  core::device_info d;
  d.id = "cpu";
  d.kind = core::device_kind::cpu;
  d.name = "Intel(R) Xeon(R) Processor";
  d.memory_bytes = 135148564480;
  d.properties = {{"threads", 16},
                  {"last_level_cache_bytes", 314572800},
                  {"peak_flops",
                   {{"fp64", {{"flops_per_second", 1449164931980.4446}}},
                    {"fp32", {{"flops_per_second", 2898329863960.889}}},
                    {"bf16", {{"flops_per_second", nullptr}}}}}};
  return d;
}

core::parameter_set gemm(const std::string& provider, const std::string& dtype, std::int64_t m, std::int64_t n,
                         std::int64_t k) {
  core::parameter_set p;
  p.set("provider", provider);
  p.set("dtype", dtype);
  p.set("M", m);
  p.set("N", n);
  p.set("K", k);
  return p;
}

core::parameter_set stream(std::int64_t size, const std::string& kernel) {
  core::parameter_set p;
  p.set("dtype", std::string("fp64"));
  p.set("size", size);
  p.set("kernel", kernel);
  return p;
}

// A modelled case against its measured wall time (the telemetry series' length, which spans
// setup, measurement and verification): never much shorter, at most about twice as long.
void expect_bounds(double modelled, double measured, const std::string& what) {
  EXPECT_GE(modelled, 0.9 * measured) << what << ": modelled " << modelled << " s, measured " << measured << " s";
  EXPECT_LE(modelled, 2.0 * measured + 0.5) << what << ": modelled " << modelled << " s, measured " << measured << " s";
}

TEST(CaseCosts, GpuGemmAgainstTheH200Run) {
  const core::measurement_settings s;
  const auto gpu = h200();
  struct row {
    const char* provider;
    const char* dtype;
    std::int64_t m, n, k;
    double measured_s;
  };
  const row rows[] = {
      {"cublaslt", "bf16", 8192, 8192, 8192, 2.21},    {"cublaslt", "bf16", 16384, 8192, 7168, 3.44},
      {"cublaslt", "bf16", 16384, 16384, 16384, 4.50}, {"cublaslt", "bf16", 16384, 1024, 8192, 0.72},
      {"cublaslt", "bf16", 16384, 3584, 8192, 1.85},   {"cublaslt", "bf16", 4096, 4096, 4096, 0.48},
      {"cublaslt", "bf16", 16384, 8192, 1280, 0.82},   {"cublaslt", "fp8", 8192, 8192, 8192, 1.32},
      {"cublaslt", "fp8", 16384, 8192, 7168, 2.00},    {"cublaslt", "fp8", 16384, 16384, 16384, 3.95},
      {"cublaslt", "fp8", 16384, 1024, 8192, 0.52},    {"cublaslt", "fp8", 16384, 3584, 8192, 1.17},
      {"cublaslt", "fp8", 4096, 4096, 4096, 0.40},     {"cublaslt", "fp8", 16384, 8192, 1280, 0.61},
      {"cublaslt", "fp16", 8192, 8192, 8192, 2.28},    {"cublaslt", "tf32", 8192, 8192, 8192, 3.25},
      {"cublas", "bf16", 8192, 8192, 8192, 1.97},      {"cublas", "bf16", 16384, 16384, 16384, 3.34},
      {"cublas", "fp16", 8192, 8192, 8192, 2.03},      {"cublas", "tf32", 8192, 8192, 8192, 3.18},
  };
  for (const auto& r : rows) {
    const auto p = gemm(r.provider, r.dtype, r.m, r.n, r.k);
    expect_bounds(core::estimated_case_seconds(gpu_gemm_cost(p, gpu), s), r.measured_s, p.label());
  }
  // cuBLAS has no fp8: skipped at once.
  EXPECT_LT(core::estimated_case_seconds(gpu_gemm_cost(gemm("cublas", "fp8", 8192, 8192, 8192), gpu), s), 0.05);
}

TEST(CaseCosts, GpuStreamAgainstTheH200Run) {
  const core::measurement_settings s;
  const auto gpu = h200();
  const std::pair<const char*, double> at_16m[] = {{"copy", 0.28},  {"mul", 0.29}, {"add", 0.27},
                                                   {"triad", 0.28}, {"dot", 0.28}, {"nstream", 0.27}};
  const std::pair<const char*, double> at_1g[] = {{"copy", 2.56},  {"mul", 2.77}, {"add", 3.21},
                                                  {"triad", 3.18}, {"dot", 3.20}, {"nstream", 3.36}};
  for (const auto& [kernel, measured] : at_16m) {
    expect_bounds(core::estimated_case_seconds(gpu_stream_cost(stream(16 << 20, kernel), gpu), s), measured, kernel);
  }
  for (const auto& [kernel, measured] : at_1g) {
    expect_bounds(core::estimated_case_seconds(gpu_stream_cost(stream(1 << 30, kernel), gpu), s), measured, kernel);
  }
  // 4 GiB arrays: about 10 s each, most of it the check on the host.
  expect_bounds(core::estimated_case_seconds(gpu_stream_cost(stream(std::int64_t{4} << 30, "triad"), gpu), s), 9.70,
                "triad 4G");
}

TEST(CaseCosts, TheFirstLookOfStreamIsTheL2AndHbm) {
  EXPECT_EQ(gpu_stream_first_look_sizes(h200()), (std::vector<std::int64_t>{16 << 20, 1 << 30}));
  auto mi300x = h200();
  mi300x.properties["l2_cache_bytes"] = 4 << 20;
  mi300x.memory_bytes = std::uint64_t{192} << 30;
  EXPECT_EQ(gpu_stream_first_look_sizes(mi300x), (std::vector<std::int64_t>{1 << 20, 1 << 30}));
  auto small = h200();
  small.memory_bytes = std::uint64_t{2} << 30;  // 1 GiB arrays do not fit three times
  EXPECT_EQ(gpu_stream_first_look_sizes(small).back(), std::int64_t{256} << 20);
}

// The default suite on the H200 node and on eight of its GPUs.
struct suite {
  std::size_t cases_per_gpu = 0;
  std::size_t cpu_cases = 0;
  double gpu_part_s = 0;  ///< until the last GPU case ends
  double total_s = 0;
};

// Planned through the stand-in implementations, which plan as the GPU ones do (in any build).
suite default_suite(int gpus) {
  core::registry registry;
  setenv("IRONBENCH_STAND_IN_GPUS", std::to_string(gpus).c_str(), 1);
  register_builtin_benchmarks(registry);
  unsetenv("IRONBENCH_STAND_IN_GPUS");
  device::stand_in_spec spec;
  spec.count = gpus;
  std::vector<core::device_info> devices{h200_host()};
  for (auto& d : device::stand_in_gpus(spec)) devices.push_back(std::move(d));
  core::run_options options;
  options.schedule = core::schedule_mode::concurrent;
  const auto plan = core::plan_run(registry, devices, options);
  const auto e = core::estimate_run(plan, options);
  suite out;
  out.total_s = e.total_s;
  for (const auto& d : e.devices) {
    if (d.device == "cpu") {
      out.cpu_cases = d.cases;
    } else {
      out.cases_per_gpu = d.cases;
      out.gpu_part_s = std::max(out.gpu_part_s, d.end_s);
    }
  }
  for (const auto& stage : e.stages) {
    if (stage.stage != "host") out.gpu_part_s = std::max(out.gpu_part_s, stage.end_s);
  }
  std::cout << fmt::format("{} GPU(s): {} cases per GPU, {} on the CPU; GPU part {:.0f} s, total {:.0f} s\n", gpus,
                           out.cases_per_gpu, out.cpu_cases, out.gpu_part_s, out.total_s);
  // Each benchmark's share on cuda:0 and on the CPU (docs/what-it-measures.md's budget).
  std::map<std::string, std::pair<std::size_t, double>> shares;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& id = plan[i].device->id;
    if (id != "cpu" && id != "cuda:0") continue;
    auto& share = shares[plan[i].bench->name() + " on " + id];
    ++share.first;
    share.second += e.case_s[i];
  }
  for (const auto& [what, share] : shares) {
    std::cout << fmt::format("  {}: {} cases, {:.1f} s\n", what, share.first, share.second);
  }
  return out;
}

TEST(DefaultSuite, WithinThreeMinutesOnOneH200AndFourOnEight) {
  const auto one = default_suite(1);
  // stream 2 sizes x 6 kernels, gemm 14 + 6 (one skipped: cuBLAS fp8), copy h2d and d2h, p2p (skipped: one GPU)
  EXPECT_EQ(one.cases_per_gpu, 12u + 20u + 2u + 1u);
  EXPECT_LE(one.total_s, 180.0);
  EXPECT_LE(one.total_s - one.gpu_part_s, 60.0);  // the CPU part, 16 cores
  const auto eight = default_suite(8);
  EXPECT_EQ(eight.cases_per_gpu, 12u + 20u + 2u + 7u);  // every peer's write
  EXPECT_LE(eight.gpu_part_s, 240.0);
}

}  // namespace
}  // namespace ironbench::benchmarks
