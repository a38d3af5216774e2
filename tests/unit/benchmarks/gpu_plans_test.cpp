// The dtype/shape matrix and the other plans of the GPU benchmarks, on described (not real) GPUs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/copy_axes.hpp"
#include "benchmarks/gemm_gpu_axes.hpp"
#include "benchmarks/stream_gpu_axes.hpp"
#include "core/error.hpp"
#include "core/sweep.hpp"

namespace ironbench::benchmarks {
namespace {

core::device_info gpu(core::device_kind kind, const std::string& arch, int index = 0, int count = 1,
                      json peers = json::array()) {
  core::device_info d;
  d.kind = kind;
  d.index = index;
  d.id = fmt::format("{}:{}", core::to_string(kind), index);
  d.memory_bytes = std::uint64_t{80} << 30;
  d.properties = {{"arch", arch},
                  {"vendor", core::to_string(kind)},
                  {"l2_cache_bytes", 50 << 20},
                  {"gpu_count", count},
                  {"peers", peers}};
  return d;
}

// One gemm case's parameters.
core::parameter_set gemm_case(const std::string& provider, const std::string& dtype, std::int64_t m, std::int64_t n,
                              std::int64_t k) {
  core::parameter_set p;
  p.set("provider", provider);
  p.set("dtype", dtype);
  p.set("M", m);
  p.set("N", n);
  p.set("K", k);
  return p;
}

TEST(GpuGemmPlan, DefaultMatrixIsProvidersTimesDtypesTimesTheSevenShapes) {
  const auto h100 = gpu(core::device_kind::cuda, "sm_90");
  const auto cases = core::expand_sweep(gpu_gemm_axes(h100));
  EXPECT_EQ(cases.size(), 2u * 4u * 7u);
  std::set<std::string> providers, dtypes;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes;
  std::size_t runnable = 0;
  for (const auto& p : cases) {
    providers.insert(p.string("provider"));
    dtypes.insert(p.string("dtype"));
    shapes.emplace(p.integer("M"), p.integer("N"), p.integer("K"));
    EXPECT_NO_THROW(check_gpu_gemm_params(p));
    if (gpu_gemm_case_unsupported(p, h100).empty()) ++runnable;
  }
  EXPECT_EQ(providers, (std::set<std::string>{"cublaslt", "cublas"}));
  EXPECT_EQ(dtypes, (std::set<std::string>{"bf16", "fp16", "fp8", "tf32"}));
  EXPECT_EQ(shapes.size(), 7u);
  for (std::int64_t square : {4096, 8192, 16384}) EXPECT_TRUE(shapes.count({square, square, square}));
  EXPECT_TRUE(shapes.count({16384, 8192, 1280}));
  EXPECT_EQ(runnable, cases.size() - 7u);  // cuBLAS has no fp8
}

TEST(GpuGemmPlan, AmdDevicesUseTheRocmProvidersAndSkipWhatTheyLack) {
  const auto mi300 = gpu(core::device_kind::hip, "gfx942");
  const auto axes = gpu_gemm_axes(mi300);
  ASSERT_EQ(axes[0].values.size(), 2u);
  EXPECT_EQ(std::get<std::string>(axes[0].values[0]), "hipblaslt");
  EXPECT_EQ(std::get<std::string>(axes[0].values[1]), "rocblas");
  auto p = gemm_case("rocblas", "tf32", 4096, 4096, 4096);
  EXPECT_NE(gpu_gemm_case_unsupported(p, mi300).find("rocBLAS"), std::string::npos);
  p.set("provider", std::string("cublaslt"));
  EXPECT_NE(gpu_gemm_case_unsupported(p, mi300).find("does not run on hip"), std::string::npos);
}

// The heuristic-only Lt provider (the library's first choice, no search) is accepted, outside
// the default sweep, and runs only on its vendor's GPUs.
TEST(GpuGemmPlan, TheHeuristicOnlyLtProviderIsOneAxisAwayAndRunsOnlyOnItsVendor) {
  const auto h100 = gpu(core::device_kind::cuda, "sm_90");
  const auto mi300 = gpu(core::device_kind::hip, "gfx942");
  const auto axes = gpu_gemm_axes(h100);
  ASSERT_EQ(axes[0].name, "provider");
  EXPECT_EQ(axes[0].values.size(), 2u);
  EXPECT_EQ(axes[0].choices, (std::vector<std::string>{"cublaslt", "cublas", "cublaslt-heuristic"}));
  EXPECT_EQ(axes[0].description,
            "GEMM library: cuBLASLt (algorithm search) or cuBLAS (cublasGemmEx); also cublaslt-heuristic (cuBLASLt: "
            "the heuristic's first algorithm, no search)");
  EXPECT_EQ(gpu_gemm_axes(mi300)[0].choices, (std::vector<std::string>{"hipblaslt", "rocblas", "hipblaslt-heuristic"}));
  EXPECT_NE(gpu_gemm_first_look_summary(mi300).find("through hipBLASLt"), std::string::npos);
  EXPECT_NE(gpu_gemm_first_look_summary(h100).find("through cuBLASLt"), std::string::npos);

  auto p = gemm_case("cublaslt-heuristic", "fp8", 8192, 8192, 8192);
  EXPECT_NO_THROW(check_gpu_gemm_params(p));
  EXPECT_EQ(gpu_gemm_case_unsupported(p, h100), "");  // fp8 through the Lt library
  EXPECT_EQ(gpu_gemm_case_unsupported(p, mi300), "provider cublaslt-heuristic does not run on hip devices");
  core::device_info cpu;
  cpu.kind = core::device_kind::cpu;
  EXPECT_EQ(gpu_gemm_case_unsupported(p, cpu), "provider cublaslt-heuristic does not run on cpu devices");

  // No algorithm search: setting up costs less than for the searching provider.
  auto searched = p;
  searched.set("provider", std::string("cublaslt"));
  EXPECT_LT(gpu_gemm_cost(p, h100).setup_s, gpu_gemm_cost(searched, h100).setup_s);

  // The CPU provider and unknown names are not GPU providers.
  for (const char* name : {"openblas", "cublaslt-heuristics", ""}) {
    p.set("provider", std::string(name));
    EXPECT_THROW(check_gpu_gemm_params(p), usage_error) << name;
  }
}

TEST(GpuGemmPlan, Fp8ShapesWithoutSixteenByteLeadingDimensionsAreSkippedWithTheReason) {
  const auto h100 = gpu(core::device_kind::cuda, "sm_90");
  auto p = gemm_case("cublaslt", "fp8", 1000, 1024, 4096);
  EXPECT_EQ(gpu_gemm_case_unsupported(p, h100), "");
  p.set("K", std::int64_t{4100});
  EXPECT_EQ(gpu_gemm_case_unsupported(p, h100),
            "fp8 GEMM needs K a multiple of 16 and N a multiple of 8 (K=4100, N=1024)");
  p.set("K", std::int64_t{4096});
  p.set("N", std::int64_t{1020});
  EXPECT_NE(gpu_gemm_case_unsupported(p, h100), "");
  p.set("dtype", std::string("bf16"));
  EXPECT_EQ(gpu_gemm_case_unsupported(p, h100), "");
}

TEST(GpuGemmPlan, MemoryAndParameterChecks) {
  const auto h100 = gpu(core::device_kind::cuda, "sm_90");
  auto p = gemm_case("cublaslt", "bf16", 8192, 8192, 8192);
  const std::uint64_t matrix = 8192ull * 8192ull * 2ull;
  EXPECT_EQ(gpu_gemm_memory_required(p, h100), 3 * matrix + (512ull << 20) + (32ull << 20));
  p.set("dtype", std::string("fp8"));
  EXPECT_EQ(gpu_gemm_memory_required(p, h100), 2 * matrix / 2 + matrix + (512ull << 20) + (32ull << 20));
  p.set("K", std::int64_t{0});
  EXPECT_THROW(check_gpu_gemm_params(p), usage_error);
  p.set("K", std::int64_t{1} << 31);
  EXPECT_THROW(check_gpu_gemm_params(p), usage_error);
  p.set("K", std::int64_t{64});
  p.set("dtype", std::string("int4"));
  EXPECT_THROW(check_gpu_gemm_params(p), usage_error);
  auto big_l2 = h100;
  big_l2.properties["l2_cache_bytes"] = 256 << 20;
  EXPECT_EQ(gpu_cache_flush_bytes(big_l2), 1024ull << 20);
}

TEST(GpuGemmPlan, RepetitionsAimForTwoHundredWithinTheMaximumTime) {
  // A 10 us product fits 200 repetitions in 3 s; fp32 16384^3 (about 0.2 s each) fits 15.
  EXPECT_EQ(gpu_gemm_min_reps_within(5, 3.0, 10e-6), gpu_gemm_min_reps);
  EXPECT_EQ(gpu_gemm_min_reps_within(5, 3.0, 0.2), 15u);
  // Never fewer than the user's --min-reps, even where they do not fit.
  EXPECT_EQ(gpu_gemm_min_reps_within(5, 0.2, 1.0), 5u);
  EXPECT_EQ(gpu_gemm_min_reps_within(300, 3.0, 10e-6), 300u);
  // An unknown repetition time keeps the target.
  EXPECT_EQ(gpu_gemm_min_reps_within(5, 3.0, 0.0), gpu_gemm_min_reps);
}

TEST(GpuStreamPlan, SizesFromOneMebibyteToFourGibibytesWhileTheyFit) {
  EXPECT_EQ(
      default_gpu_stream_sizes(std::uint64_t{80} << 30),
      (std::vector<std::int64_t>{1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30, std::int64_t{4} << 30}));
  EXPECT_EQ(default_gpu_stream_sizes(std::uint64_t{8} << 30).back(), std::int64_t{1} << 30);
}

TEST(CopyPlan, KernelsCannotReachPageableMemory) {
  core::parameter_set p;
  p.set("path", std::string("h2d_pageable"));
  p.set("engine", std::string("sm"));
  p.set("size", std::int64_t{1} << 20);
  EXPECT_NE(copy_case_unsupported(p).find("pageable"), std::string::npos);
  p.set("engine", std::string("ce"));
  EXPECT_EQ(copy_case_unsupported(p), "");
  p.set("size", std::int64_t{0});
  EXPECT_THROW(check_copy_params(p, gpu(core::device_kind::cuda, "sm_90")), usage_error);
  EXPECT_EQ(core::expand_sweep(copy_axes()).size(), copy_paths.size() * 2);
}

TEST(P2pPlan, OnePeerPerOtherGpuAndKernelsNeedPeerAccess) {
  EXPECT_NE(p2p_unsupported(gpu(core::device_kind::cuda, "sm_90")).find("at least two GPUs (1 visible)"),
            std::string::npos);
  const auto second = gpu(core::device_kind::cuda, "sm_90", 1, 4, json::array({"cuda:0", "cuda:2"}));
  EXPECT_EQ(p2p_unsupported(second), "");
  EXPECT_EQ(other_gpu_ids(second), (std::vector<std::string>{"cuda:0", "cuda:2", "cuda:3"}));
  EXPECT_EQ(core::expand_sweep(p2p_axes(second)).size(), 3u * 2u * 2u);
  core::parameter_set p;
  p.set("peer", std::string("cuda:3"));
  p.set("direction", std::string("write"));
  p.set("engine", std::string("sm"));
  p.set("size", std::int64_t{1} << 20);
  EXPECT_NE(p2p_case_unsupported(p, second).find("no peer access to cuda:3"), std::string::npos);
  p.set("peer", std::string("cuda:2"));
  EXPECT_EQ(p2p_case_unsupported(p, second), "");
  p.set("peer", std::string("cuda:1"));
  EXPECT_THROW(check_copy_params(p, second), usage_error);
}

}  // namespace
}  // namespace ironbench::benchmarks
