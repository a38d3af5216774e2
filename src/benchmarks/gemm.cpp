// gemm: matrix multiplication throughput per shape and dtype (TFLOPS, % of peak), verified
// on sampled elements. CPU provider: OpenBLAS.
#include "benchmarks/gemm.hpp"

#include <fmt/format.h>

#include <vector>

#include "benchmarks/gemm_check.hpp"
#include "benchmarks/gemm_shapes.hpp"
#include "benchmarks/host_random.hpp"
#include "blas/bfloat16.hpp"
#include "blas/openblas.hpp"
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

// Host matrices in the storage of one dtype, made from the same normal samples.
struct host_operands {
  std::vector<double> a64, b64, c64;
  std::vector<float> a32, b32, c32;
  std::vector<blas::bfloat16_bits> a16, b16;

  host_operands(blas::dtype type, std::int64_t m, std::int64_t n, std::int64_t k) {
    std::vector<double> a(static_cast<std::size_t>(m * k));
    std::vector<double> b(static_cast<std::size_t>(k * n));
    fill_standard_normal(a, 1);
    fill_standard_normal(b, 2);
    const auto outputs = static_cast<std::size_t>(m * n);
    switch (type) {
      case blas::dtype::fp64:
        a64 = std::move(a);
        b64 = std::move(b);
        c64.assign(outputs, 0.0);
        break;
      case blas::dtype::fp32:
        a32.assign(a.begin(), a.end());
        b32.assign(b.begin(), b.end());
        c32.assign(outputs, 0.0f);
        break;
      case blas::dtype::bf16:
        for (double v : a) a16.push_back(blas::to_bfloat16(static_cast<float>(v)));
        for (double v : b) b16.push_back(blas::to_bfloat16(static_cast<float>(v)));
        c32.assign(outputs, 0.0f);
        break;
    }
  }

  [[nodiscard]] const void* a() const {
    return !a64.empty() ? static_cast<const void*>(a64.data())
           : !a32.empty() ? static_cast<const void*>(a32.data()) : a16.data();
  }
  [[nodiscard]] const void* b() const {
    return !b64.empty() ? static_cast<const void*>(b64.data())
           : !b32.empty() ? static_cast<const void*>(b32.data()) : b16.data();
  }
  [[nodiscard]] void* c() { return !c64.empty() ? static_cast<void*>(c64.data()) : c32.data(); }

  [[nodiscard]] double a_at(std::size_t i) const {
    return !a64.empty() ? a64[i] : !a32.empty() ? a32[i] : blas::from_bfloat16(a16[i]);
  }
  [[nodiscard]] double b_at(std::size_t i) const {
    return !b64.empty() ? b64[i] : !b32.empty() ? b32[i] : blas::from_bfloat16(b16[i]);
  }
  [[nodiscard]] double c_at(std::size_t i) const { return !c64.empty() ? c64[i] : c32[i]; }
};

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
  state.set_peak_flops({peak.at("flops_per_second").get<double>(),
                        peak.value("source", std::string("unknown source"))});
}

class gemm_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override {
    return "Matrix multiply C = A*B: TFLOPS per shape and dtype, verified on sampled elements";
  }

  std::string unsupported_reason(const device_info& device) const override {
    if (device.kind == device_kind::cpu) return {};
    return fmt::format("no GEMM provider for {} devices in this build", core::to_string(device.kind));
  }

  std::vector<axis> axes(const device_info&) const override {
    std::vector<std::int64_t> m, n, k;
    for (const auto& s : llama70b_training_shapes) {
      m.push_back(s.m / cpu_shape_divisor);
      n.push_back(s.n / cpu_shape_divisor);
      k.push_back(s.k / cpu_shape_divisor);
    }
    auto dtype = core::string_axis("dtype", {"fp64", "fp32", "bf16"},
                                   "element type (bf16: bf16 inputs, fp32 accumulate and output)",
                                   {"fp64", "fp32", "bf16"});
    auto axis_m = core::integer_axis("M", m, "rows of A and C (default: seed Llama-70B shapes / 8)");
    auto axis_n = core::integer_axis("N", n, "columns of B and C");
    auto axis_k = core::integer_axis("K", k, "columns of A, rows of B");
    for (auto* a : {&axis_m, &axis_n, &axis_k}) a->zip_group = "shape";
    return {dtype, axis_m, axis_n, axis_k};
  }

  std::uint64_t memory_required(const parameter_set& params, const device_info&) const override {
    const auto type = parse_dtype(params);
    const auto m = static_cast<std::uint64_t>(params.integer("M"));
    const auto n = static_cast<std::uint64_t>(params.integer("N"));
    const auto k = static_cast<std::uint64_t>(params.integer("K"));
    // Inputs are generated in fp64 first, then converted.
    return (m * k + k * n) * (8 + blas::input_bytes(type)) + m * n * blas::output_bytes(type);
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto type = parse_dtype(params);
    const auto m = params.integer("M");
    const auto n = params.integer("N");
    const auto k = params.integer("K");
    if (m <= 0 || n <= 0 || k <= 0) state.skip("M, N and K must be positive");
    if (type == blas::dtype::bf16 && !blas::openblas_has_bf16_gemm()) {
      state.skip("this OpenBLAS has no bf16 GEMM (cblas_sbgemm)");
    }

    host_operands operands(type, m, n, k);
    state.add_flops(2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
    set_peak(state, type);
    state.note("provider", "openblas " + blas::openblas_config());
    state.note("threads", std::to_string(blas::openblas_threads()));
    state.note("layout", "row-major, A and B not transposed");
    if (const char* label = shape_label(m, n, k, cpu_shape_divisor)) {
      state.note("shape", fmt::format("{} / {}", label, cpu_shape_divisor));
    }

    state.measure_host([&] { blas::openblas_gemm(type, m, n, k, operands.a(), operands.b(), operands.c()); });

    const auto check = check_gemm(
        k, [&](std::int64_t i, std::int64_t p) { return operands.a_at(static_cast<std::size_t>(i * k + p)); },
        [&](std::int64_t p, std::int64_t j) { return operands.b_at(static_cast<std::size_t>(p * n + j)); },
        [&](std::int64_t i, std::int64_t j) { return operands.c_at(static_cast<std::size_t>(i * n + j)); },
        blas::accumulation_roundoff(type), gemm_sample_positions(m, n, sampled_elements, 3));
    state.note("verification", fmt::format("{} sampled elements, worst error {:.2g} of tolerance",
                                           check.checked, check.worst_ratio));
    state.require(check.ok, "wrong result: " + check.detail);
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_gemm_benchmark() { return std::make_unique<gemm_benchmark>(); }

}  // namespace ironbench::benchmarks
