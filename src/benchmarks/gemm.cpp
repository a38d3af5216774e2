// gemm: matrix multiplication throughput per shape and dtype (TFLOPS, % of peak), verified
// on sampled elements. CPU providers: the CPU rows of blas/gemm_providers.hpp (OpenBLAS).
#include "benchmarks/gemm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/gemm_check.hpp"
#include "benchmarks/gemm_shapes.hpp"
#include "benchmarks/host_random.hpp"
#include "blas/bfloat16.hpp"
#include "blas/gemm_providers.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"

namespace ironbench::benchmarks {
namespace {

using core::axis;
using core::case_state;
using core::device_info;
using core::device_kind;
using core::parameter_set;

constexpr std::size_t sampled_elements = 64;

const char* shape_label(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t divisor) {
  for (const auto& s : llama70b_training_shapes) {
    if (s.m / divisor == m && s.n / divisor == n && s.k / divisor == k) return s.label;
  }
  return nullptr;
}

// Element conversions between the generated fp64 values and each storage type.
double as_double(double v) { return v; }
double as_double(float v) { return v; }
double as_double(blas::bfloat16_bits v) { return blas::from_bfloat16(v); }

template <typename T>
T stored_as(double v) {
  if constexpr (std::is_same_v<T, blas::bfloat16_bits>) {
    return blas::to_bfloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Standard normal values, generated in fp64 and rounded to the storage type.
template <typename T>
std::vector<T> normal_matrix(std::int64_t elements, std::uint64_t seed) {
  std::vector<double> values(static_cast<std::size_t>(elements));
  fill_standard_normal(values, seed);
  std::vector<T> stored(values.size());
  std::transform(values.begin(), values.end(), stored.begin(), stored_as<T>);
  return stored;
}

// The CPU providers. With one (OpenBLAS), gemm has no provider axis and every case runs on it;
// with more, a provider axis lists them (the defaults: those in the default sweep).
std::vector<const blas::gemm_provider_entry*> cpu_gemm_providers() {
  return blas::gemm_providers_for(device_kind::cpu);
}

const blas::cpu_gemm_functions& cpu_gemm_provider_of(const parameter_set& params) {
  const auto rows = cpu_gemm_providers();
  if (!params.contains("provider")) return *rows.front()->cpu;
  for (const auto* row : rows) {
    if (row->name == params.string("provider")) return *row->cpu;
  }
  throw usage_error(fmt::format("gemm: unknown provider '{}'", params.string("provider")));
}

// Prepares, measures and verifies C = A * B with inputs of type In and output of type Out.
template <typename In, typename Out>
void measure_gemm(case_state& state, const blas::cpu_gemm_functions& provider, blas::dtype type, std::int64_t m,
                  std::int64_t n, std::int64_t k) {
  const auto a = normal_matrix<In>(m * k, 1);
  const auto b = normal_matrix<In>(k * n, 2);
  std::vector<Out> c(static_cast<std::size_t>(m * n));
  state.measure_host([&] { provider.run(type, m, n, k, a.data(), b.data(), c.data()); });

  const auto check = check_gemm(
      k, [&](std::int64_t i, std::int64_t p) { return as_double(a[static_cast<std::size_t>(i * k + p)]); },
      [&](std::int64_t p, std::int64_t j) { return as_double(b[static_cast<std::size_t>(p * n + j)]); },
      [&](std::int64_t i, std::int64_t j) { return as_double(c[static_cast<std::size_t>(i * n + j)]); },
      blas::accumulation_roundoff(type), gemm_sample_positions(m, n, sampled_elements, 3));
  state.note("verification",
             fmt::format("{} sampled elements, worst error {:.2g} of tolerance", check.checked, check.worst_ratio));
  state.require(check.ok, "wrong result: " + check.detail);
}

blas::dtype parse_dtype(const parameter_set& params) {
  const auto type = blas::dtype_from_string(params.string("dtype"));
  IRONBENCH_CHECK(type.has_value(), "unknown dtype " + params.string("dtype"));
  return *type;
}

void set_peak(case_state& state, blas::dtype type) {
  const auto& peaks = state.device().properties;
  if (!peaks.contains("peak_flops")) return;
  const auto& entry = peaks.at("peak_flops");
  const char* name = blas::to_string(type);
  if (!entry.contains(name) || !entry.at(name).contains("flops_per_second")) return;
  const auto& peak = entry.at(name);
  if (!peak.at("flops_per_second").is_number()) return;
  state.set_peak_flops(
      {peak.at("flops_per_second").get<double>(), peak.value("source", std::string("unknown source"))});
}

class gemm_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override {
    return "Matrix multiply C = A*B: TFLOPS per shape and dtype, verified on sampled elements";
  }

  std::string unsupported_reason(const device_info& device) const override {
    if (device.kind == device_kind::cpu) return {};
    std::vector<std::string_view> libraries;
    for (const auto* row : cpu_gemm_providers()) libraries.push_back(row->library);
    return fmt::format("{} runs on the CPU, not on {} devices", fmt::join(libraries, ", "),
                       core::to_string(device.kind));
  }

  std::vector<axis> axes(const device_info&) const override {
    std::vector<std::int64_t> m, n, k;
    for (const auto& s : llama70b_training_shapes) {
      m.push_back(s.m / cpu_shape_divisor);
      n.push_back(s.n / cpu_shape_divisor);
      k.push_back(s.k / cpu_shape_divisor);
    }
    auto dtype =
        core::string_axis("dtype", {"fp64", "fp32", "bf16"},
                          "element type (bf16: bf16 inputs, fp32 accumulate and output)", {"fp64", "fp32", "bf16"});
    auto axis_m = core::integer_axis("M", m, "rows of A and C (default: seed Llama-70B shapes / 8)");
    auto axis_n = core::integer_axis("N", n, "columns of B and C");
    auto axis_k = core::integer_axis("K", k, "columns of A, rows of B");
    for (auto* a : {&axis_m, &axis_n, &axis_k}) a->zip_group = "shape";
    const auto providers = cpu_gemm_providers();
    if (providers.size() == 1) return {dtype, axis_m, axis_n, axis_k};
    std::vector<std::string> defaults, choices, described;
    for (const auto* row : providers) {
      choices.emplace_back(row->name);
      if (row->in_default_sweep) defaults.emplace_back(row->name);
      described.push_back(fmt::format("{} ({})", row->name, row->library));
    }
    auto provider =
        core::string_axis("provider", defaults, fmt::format("GEMM library: {}", fmt::join(described, ", ")), choices);
    return {provider, dtype, axis_m, axis_n, axis_k};
  }

  // The first look: the three squares (the seed's 4K, 8K and 16K / 8) in every dtype.
  bool in_first_look(const parameter_set& params, const device_info&) const override {
    return params.integer("M") == params.integer("N") && params.integer("N") == params.integer("K");
  }
  std::string first_look_summary(const device_info&) const override {
    return "the three squares (512, 1024, 2048) in every dtype (any --axis of gemm runs the whole product)";
  }
  core::case_cost cost(const parameter_set& params, const device_info& device) const override {
    if (!cpu_gemm_provider_of(params).unsupported(parse_dtype(params)).empty()) return skipped_case_cost();
    return cpu_gemm_cost(params, device);
  }

  void check_params(const parameter_set& params, const device_info&) const override {
    (void)cpu_gemm_provider_of(params);
    for (const char* name : {"M", "N", "K"}) {
      if (params.integer(name) <= 0) {
        throw usage_error(fmt::format("gemm: {} must be positive ({})", name, params.label()));
      }
    }
  }

  std::uint64_t memory_required(const parameter_set& params, const device_info&) const override {
    const auto type = parse_dtype(params);
    const auto m = static_cast<std::uint64_t>(params.integer("M"));
    const auto n = static_cast<std::uint64_t>(params.integer("N"));
    const auto k = static_cast<std::uint64_t>(params.integer("K"));
    // Inputs are generated in fp64 first, then converted.
    using core::bytes_plus;
    using core::bytes_times;
    return bytes_plus(bytes_times(bytes_plus(bytes_times(m, k), bytes_times(k, n)), 8 + blas::input_bytes(type)),
                      bytes_times(bytes_times(m, n), blas::output_bytes(type)));
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto type = parse_dtype(params);
    const auto m = params.integer("M");
    const auto n = params.integer("N");
    const auto k = params.integer("K");
    const auto& provider = cpu_gemm_provider_of(params);
    if (auto reason = provider.unsupported(type); !reason.empty()) state.skip(reason);

    state.add_flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
    set_peak(state, type);
    state.note("provider", provider.describe());
    state.note("threads", std::to_string(provider.threads()));
    state.note("layout", "row-major, A and B not transposed");
    if (const char* label = shape_label(m, n, k, cpu_shape_divisor)) {
      state.note("shape", fmt::format("{} / {}", label, cpu_shape_divisor));
    }
    switch (type) {
      case blas::dtype::fp64: measure_gemm<double, double>(state, provider, type, m, n, k); break;
      case blas::dtype::fp32: measure_gemm<float, float>(state, provider, type, m, n, k); break;
      case blas::dtype::bf16: measure_gemm<blas::bfloat16_bits, float>(state, provider, type, m, n, k); break;
    }
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_cpu_gemm() { return std::make_unique<gemm_benchmark>(); }

}  // namespace ironbench::benchmarks
