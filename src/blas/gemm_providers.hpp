// Every GEMM provider in one table: its name on the command line (`--axis provider=...`) and in
// results, the kind of device it runs on, whether this build has it, and what runs a case. The
// CPU and GPU gemm benchmarks (their axes, their case runners, what `ironbench list` shows) and
// the docs check read the names from here: a new provider is its implementation file and one row
// in gemm_providers.cpp (docs/contributing.md, "Adding a GEMM provider"). Pure C++ (no GPU
// runtime), tested everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blas/dtype.hpp"
#include "blas/gpu_gemm_types.hpp"
#include "core/device_kinds.hpp"

namespace ironbench::blas {

class gpu_gemm;  // blas/gpu/gpu_gemm.hpp (GPU builds)

/// Makes a GPU provider that times up to `candidates` algorithms and may use `workspace_bytes`
/// of workspace (providers without a search or a workspace ignore them).
using gpu_gemm_factory = std::unique_ptr<gpu_gemm> (*)(std::size_t candidates, std::size_t workspace_bytes);

/// What the CPU gemm benchmark calls on a CPU provider.
struct cpu_gemm_functions {
  /// C = A * B, row-major, not transposed (as openblas_gemm).
  void (*run)(dtype type, std::int64_t m, std::int64_t n, std::int64_t k, const void* a, const void* b, void* c);
  /// notes.provider: "openblas 0.3.21 DYNAMIC_ARCH ... (Zen)".
  std::string (*describe)();
  /// notes.threads: the threads the library uses.
  int (*threads)();
  /// Empty when the loaded library runs `type`; otherwise the skip reason.
  std::string (*unsupported)(dtype type);
};

/// One provider.
struct gemm_provider_entry {
  std::string_view name;          ///< on the command line and in results: "cublaslt"
  std::string_view library;       ///< as its vendor writes it: "cuBLASLt"
  std::string_view method;        ///< how it picks an algorithm, for `ironbench list`: "algorithm search"
  core::device_kind device;       ///< the kind of device it runs on
  gemm_provider family;           ///< which dtypes it runs (gpu_gemm_unsupported)
  bool in_default_sweep;          ///< among the provider axis's defaults (else one --axis away)
  std::size_t candidates;         ///< algorithms timed before keeping the fastest (1: the library's choice)
  gpu_gemm_factory make_gpu;      ///< GPU providers, in builds with their runtime; else null
  const cpu_gemm_functions* cpu;  ///< CPU providers; else null

  /// Whether this build can run it (its runner is compiled in).
  [[nodiscard]] bool built() const { return make_gpu != nullptr || cpu != nullptr; }
};

/// Every provider: CPU first, then each GPU kind's, defaults before the others.
[[nodiscard]] std::span<const gemm_provider_entry> gemm_providers();

/// The providers that run on `kind`, in table order.
[[nodiscard]] std::vector<const gemm_provider_entry*> gemm_providers_for(core::device_kind kind);

/// The provider named `name`, or null.
[[nodiscard]] const gemm_provider_entry* find_gemm_provider(std::string_view name);

}  // namespace ironbench::blas
