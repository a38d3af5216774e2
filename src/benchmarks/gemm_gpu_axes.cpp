#include "benchmarks/gemm_gpu_axes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "benchmarks/gemm_shapes.hpp"
#include "blas/gemm_providers.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"

namespace ironbench::benchmarks {
namespace {

bool is_hip(const core::device_info& device) { return device.kind == core::device_kind::hip; }

blas::gpu_dtype dtype_of(const core::parameter_set& params) {
  const auto type = blas::gpu_dtype_from_string(params.string("dtype"));
  if (!type) throw usage_error(fmt::format("gemm: unknown GPU dtype '{}'", params.string("dtype")));
  return *type;
}

}  // namespace

std::size_t gpu_gemm_min_reps_within(std::size_t min_reps, double max_time_s, double repetition_s) {
  std::size_t fit = gpu_gemm_min_reps;
  if (repetition_s > 0 && max_time_s / repetition_s < static_cast<double>(gpu_gemm_min_reps)) {
    fit = static_cast<std::size_t>(max_time_s / repetition_s);
  }
  return std::max(min_reps, fit);
}

std::vector<core::axis> gpu_gemm_axes(const core::device_info& device) {
  std::vector<std::string> providers, choices, described, others;
  for (const auto* row : blas::gemm_providers_for(device.kind)) {
    choices.emplace_back(row->name);
    if (row->in_default_sweep) {
      providers.emplace_back(row->name);
      described.push_back(fmt::format("{} ({})", row->library, row->method));
    } else {
      others.push_back(fmt::format("{} ({}: {})", row->name, row->library, row->method));
    }
  }
  std::string provider_help = fmt::format("GEMM library: {}", fmt::join(described, " or "));
  if (!others.empty()) provider_help += fmt::format("; also {}", fmt::join(others, ", "));
  std::vector<std::string> dtypes;
  for (auto t : blas::all_gpu_dtypes()) dtypes.emplace_back(blas::to_string(t));
  std::vector<std::int64_t> m, n, k;
  for (const auto& s : llama70b_training_shapes) {
    m.push_back(s.m);
    n.push_back(s.n);
    k.push_back(s.k);
  }
  auto axis_m = core::integer_axis("M", m, "rows of A and C (default: the seed's Llama-70B training shapes)");
  auto axis_n = core::integer_axis("N", n, "columns of C, rows of the stored B (N x K)");
  auto axis_k = core::integer_axis("K", k, "reduction dimension");
  for (auto* a : {&axis_m, &axis_n, &axis_k}) a->zip_group = "shape";
  return {core::string_axis("provider", providers, provider_help, choices),
          core::string_axis("dtype", default_gpu_gemm_dtypes,
                            "fp32, tf32, fp16 and bf16 (FP32 accumulate), fp8 (e4m3, scaled, bf16 out)", dtypes),
          axis_m, axis_n, axis_k};
}

bool gpu_gemm_in_first_look(const core::parameter_set& params, const core::device_info&) {
  const auto& dtype = params.string("dtype");
  if (gpu_gemm_provider_of(params).family == blas::gemm_provider::blaslt && (dtype == "bf16" || dtype == "fp8")) {
    return true;
  }
  return params.integer("M") == 8192 && params.integer("N") == 8192 && params.integer("K") == 8192;
}

std::string gpu_gemm_first_look_summary(const core::device_info& device) {
  std::string lt = "the Lt library";
  for (const auto* row : blas::gemm_providers_for(device.kind)) {
    if (row->in_default_sweep && row->family == blas::gemm_provider::blaslt) {
      lt = std::string(row->library);
      break;
    }
  }
  return fmt::format(
      "the seven shapes in bf16 and fp8 through {}, and 8192x8192x8192 in every other dtype and library "
      "(any --axis of gemm runs the whole product)",
      lt);
}

const blas::gemm_provider_entry& gpu_gemm_provider_of(const core::parameter_set& params) {
  const auto& name = params.string("provider");
  const auto* row = blas::find_gemm_provider(name);
  if (row == nullptr || !core::facts_of(row->device).gpu)
    throw usage_error(fmt::format("gemm: unknown provider '{}'", name));
  return *row;
}

std::string gpu_gemm_case_unsupported(const core::parameter_set& params, const core::device_info& device) {
  const auto& provider = gpu_gemm_provider_of(params);
  if (provider.device != device.kind) {
    return fmt::format("provider {} does not run on {} devices", provider.name, core::to_string(device.kind));
  }
  if (dtype_of(params) == blas::gpu_dtype::fp8 && (params.integer("K") % 16 != 0 || params.integer("N") % 8 != 0)) {
    // Leading dimensions of 16 bytes: K one-byte inputs, N bf16 outputs.
    return fmt::format("fp8 GEMM needs K a multiple of 16 and N a multiple of 8 (K={}, N={})", params.integer("K"),
                       params.integer("N"));
  }
  return blas::gpu_gemm_unsupported(provider.family, dtype_of(params), device.properties.value("arch", std::string()),
                                    is_hip(device));
}

std::uint64_t gpu_cache_flush_bytes(const core::device_info& device) {
  const auto l2 = device.properties.value("l2_cache_bytes", std::int64_t{0});
  return std::max<std::uint64_t>(min_cache_flush_bytes, 4 * static_cast<std::uint64_t>(std::max<std::int64_t>(l2, 0)));
}

std::uint64_t gpu_gemm_memory_required(const core::parameter_set& params, const core::device_info& device) {
  const auto types = blas::gpu_gemm_types_for(dtype_of(params), false);
  const auto m = static_cast<std::uint64_t>(params.integer("M"));
  const auto n = static_cast<std::uint64_t>(params.integer("N"));
  const auto k = static_cast<std::uint64_t>(params.integer("K"));
  using core::bytes_plus;
  using core::bytes_times;
  return bytes_plus(
      bytes_plus(bytes_times(bytes_plus(bytes_times(m, k), bytes_times(n, k)), blas::element_bytes(types.input)),
                 bytes_times(bytes_times(m, n), blas::element_bytes(types.output))),
      gpu_cache_flush_bytes(device) + blaslt_workspace_bytes);
}

void check_gpu_gemm_params(const core::parameter_set& params) {
  (void)gpu_gemm_provider_of(params);
  (void)dtype_of(params);
  for (const char* name : {"M", "N", "K"}) {
    const auto value = params.integer(name);
    if (value <= 0 || value > std::numeric_limits<int>::max()) {
      throw usage_error(
          fmt::format("gemm: {} must be between 1 and {} ({})", name, std::numeric_limits<int>::max(), params.label()));
    }
  }
}

}  // namespace ironbench::benchmarks
