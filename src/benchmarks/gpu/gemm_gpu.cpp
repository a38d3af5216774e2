// gemm on a GPU through the providers of blas/gemm_providers.hpp (cuBLASLt with its algorithm
// search, cuBLAS, hipBLASLt, rocBLAS, ...), each made by its row's runner, timed as
// triton's do_bench times torch.matmul (cache flushed before every repetition, device events,
// median), verified on sampled elements against an extended-precision reference.
#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/gemm.hpp"
#include "benchmarks/gemm_check.hpp"
#include "benchmarks/gemm_gpu_axes.hpp"
#include "benchmarks/gemm_shapes.hpp"
#include "benchmarks/gpu/gpu_fill.hpp"
#include "benchmarks/gpu/gpu_timing.hpp"
#include "blas/float_formats.hpp"
#include "blas/gemm_providers.hpp"
#include "blas/gpu/gpu_gemm.hpp"
#include "core/units.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"

namespace ironbench::benchmarks {
namespace {

using core::case_state;
using core::device_info;

constexpr std::size_t sampled_elements = 64;
constexpr float fp8_scale_a = 0.5f;
constexpr float fp8_scale_b = 0.25f;

double decode(blas::element_format format, const std::byte* bytes) {
  switch (format) {
    case blas::element_format::fp32: {
      float value = 0;
      std::memcpy(&value, bytes, sizeof value);
      return value;
    }
    case blas::element_format::fp16:
    case blas::element_format::bf16: {
      std::uint16_t bits = 0;
      std::memcpy(&bits, bytes, sizeof bits);
      return blas::decode_small_float(bits,
                                      format == blas::element_format::fp16 ? blas::fp16_format : blas::bf16_format);
    }
    case blas::element_format::e4m3fn:
      return blas::decode_small_float(static_cast<std::uint8_t>(*bytes), blas::e4m3fn_format);
    case blas::element_format::e4m3fnuz:
      return blas::decode_small_float(static_cast<std::uint8_t>(*bytes), blas::e4m3fnuz_format);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// Rows of a device matrix copied to the host on demand, decoded to double.
class row_reader {
 public:
  row_reader(const std::byte* device_matrix, std::int64_t columns, blas::element_format format)
      : matrix_(device_matrix), columns_(columns), format_(format) {}

  double at(std::int64_t row, std::int64_t column) {
    auto it = rows_.find(row);
    if (it == rows_.end()) {
      const std::size_t bytes_per_element = blas::element_bytes(format_);
      std::vector<std::byte> raw(static_cast<std::size_t>(columns_) * bytes_per_element);
      IRONBENCH_GPU_CHECK(cudaMemcpy(raw.data(), matrix_ + static_cast<std::size_t>(row) * raw.size(), raw.size(),
                                     cudaMemcpyDeviceToHost));
      std::vector<double> values(static_cast<std::size_t>(columns_));
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = decode(format_, raw.data() + i * bytes_per_element);
      it = rows_.emplace(row, std::move(values)).first;
    }
    return it->second[static_cast<std::size_t>(column)];
  }

 private:
  const std::byte* matrix_;
  std::int64_t columns_;
  blas::element_format format_;
  std::map<std::int64_t, std::vector<double>> rows_;
};

struct gemm_buffers {
  device::device_buffer<std::byte> a, b, c, flush;
  device::device_buffer<float> scales;
};

// Times every candidate algorithm (flushed, median of 10), keeps the fastest and returns its
// median time (the flush before each repetition not counted).
double choose_algorithm(case_state& state, blas::gpu_gemm& gemm, std::size_t candidates, cudaStream_t stream,
                        const std::function<void()>& flush) {
  std::size_t best = 0;
  double best_s = std::numeric_limits<double>::infinity();
  std::vector<std::string> timings;
  std::string first_error;
  for (std::size_t i = 0; i < candidates; ++i) {
    gemm.choose(i);
    try {
      const double s = gpu_median_seconds(
          stream, flush, [&] { gemm.run(stream); }, 2, 10);
      timings.push_back(fmt::format("#{} {:.4g} ms", i + 1, s * 1e3));
      if (s < best_s) {
        best_s = s;
        best = i;
      }
    } catch (const error& e) {
      timings.push_back(fmt::format("#{} failed", i + 1));
      if (first_error.empty()) first_error = e.what();
    }
  }
  if (!(best_s < std::numeric_limits<double>::infinity())) throw error("no candidate algorithm ran: " + first_error);
  gemm.choose(best);
  if (candidates > 1) state.note("algorithm_search", fmt::format("{}", fmt::join(timings, ", ")));
  return best_s;
}

void verify(case_state& state, const blas::gpu_gemm_problem& problem, const gemm_buffers& buffers, double scale) {
  const auto m = problem.m;
  const auto n = problem.n;
  const auto k = problem.k;
  row_reader a(buffers.a.data(), k, problem.types.input);
  row_reader b(buffers.b.data(), k, problem.types.input);
  row_reader c(buffers.c.data(), n, problem.types.output);
  const auto check = check_gemm_statistical(
      k, [&](std::int64_t i, std::int64_t p) { return a.at(i, p); },
      [&](std::int64_t p, std::int64_t j) { return b.at(j, p); },  // B is stored N x K
      [&](std::int64_t i, std::int64_t j) { return c.at(i, j); }, scale, problem.types.error,
      gemm_sample_positions(m, n, sampled_elements, 3));
  state.note("verification",
             fmt::format("{} sampled elements, worst error {:.2g} of tolerance", check.checked, check.worst_ratio));
  state.require(check.ok, "wrong result: " + check.detail);
}

void set_peak(case_state& state, const std::string& dtype) {
  const auto& props = state.device().properties;
  if (!props.contains("peak_flops") || !props.at("peak_flops").contains(dtype)) return;
  const auto& peak = props.at("peak_flops").at(dtype);
  if (!peak.at("flops_per_second").is_number()) return;
  state.set_peak_flops({peak.at("flops_per_second").get<double>(), peak.value("source", std::string())});
}

class gpu_gemm_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override { return "GEMM on a GPU"; }
  std::string unsupported_reason(const device_info& device) const override {
    if (core::is_gpu(device)) return {};
    return "the GPU providers run on GPUs";
  }
  std::vector<core::axis> axes(const device_info& device) const override { return gpu_gemm_axes(device); }
  void check_params(const core::parameter_set& params, const device_info&) const override {
    check_gpu_gemm_params(params);
  }
  std::uint64_t memory_required(const core::parameter_set& params, const device_info& device) const override {
    return gpu_gemm_memory_required(params, device);
  }
  bool in_first_look(const core::parameter_set& params, const device_info& device) const override {
    return gpu_gemm_in_first_look(params, device);
  }
  std::string first_look_summary(const device_info& device) const override {
    return gpu_gemm_first_look_summary(device);
  }
  core::case_cost cost(const core::parameter_set& params, const device_info& device) const override {
    return gpu_gemm_cost(params, device);
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto& device = state.device();
    if (auto reason = gpu_gemm_case_unsupported(params, device); !reason.empty()) state.skip(reason);
    const auto& provider = gpu_gemm_provider_of(params);
    if (!provider.built()) state.skip(fmt::format("provider {} is not in this build", provider.name));
    blas::gpu_gemm_problem problem;
    problem.type = *blas::gpu_dtype_from_string(params.string("dtype"));
    problem.types = blas::gpu_gemm_types_for(problem.type,
                                             blas::arch_uses_fnuz_fp8(device.properties.value("arch", std::string())));
    problem.m = params.integer("M");
    problem.n = params.integer("N");
    problem.k = params.integer("K");

    device::use_gpu(device.index);
    device::gpu_stream stream;
    const auto in_bytes = blas::element_bytes(problem.types.input);
    const auto out_bytes = blas::element_bytes(problem.types.output);
    const auto mk = static_cast<std::size_t>(problem.m * problem.k);
    const auto nk = static_cast<std::size_t>(problem.n * problem.k);
    const auto mn = static_cast<std::size_t>(problem.m * problem.n);
    gemm_buffers buffers{device::device_buffer<std::byte>(mk * in_bytes),
                         device::device_buffer<std::byte>(nk * in_bytes),
                         device::device_buffer<std::byte>(mn * out_bytes),
                         device::device_buffer<std::byte>(gpu_cache_flush_bytes(device)),
                         device::device_buffer<float>(blas::aligned_slot(2, sizeof(float)))};
    gpu_fill_normal(problem.types.input, buffers.a.data(), mk, 1, stream.get());
    gpu_fill_normal(problem.types.input, buffers.b.data(), nk, 2, stream.get());
    // NaN everywhere (all-ones bytes), so an element the library does not write fails the check.
    IRONBENCH_GPU_CHECK(cudaMemsetAsync(buffers.c.data(), 0xFF, buffers.c.bytes(), stream.get()));
    problem.a = buffers.a.data();
    problem.b = buffers.b.data();
    problem.c = buffers.c.data();
    double scale = 1.0;
    if (problem.types.scaled) {
      // Each scale on its own 16-byte boundary (blas_pointer_alignment): cuBLASLt's fp8 kernels
      // ran with neither scale 4 bytes into the allocation.
      float* scale_a = buffers.scales.data() + blas::aligned_slot(0, sizeof(float));
      float* scale_b = buffers.scales.data() + blas::aligned_slot(1, sizeof(float));
      gpu_set_float(scale_a, fp8_scale_a, stream.get());
      gpu_set_float(scale_b, fp8_scale_b, stream.get());
      problem.scale_a = scale_a;
      problem.scale_b = scale_b;
      scale = double(fp8_scale_a) * fp8_scale_b;
      state.note("fp8_scales", fmt::format("A {} B {} ({})", fp8_scale_a, fp8_scale_b, to_string(problem.types.input)));
    }
    stream.synchronize();

    auto gemm = provider.make_gpu(provider.candidates, blaslt_workspace_bytes);
    const auto flush = [&] {
      IRONBENCH_GPU_CHECK(cudaMemsetAsync(buffers.flush.data(), 0, buffers.flush.bytes(), stream.get()));
    };
    const auto candidates = gemm->prepare(problem);
    const double repetition_s = choose_algorithm(state, *gemm, candidates, stream.get(), flush);
    state.note("provider", gemm->describe());
    state.note("layout", "row-major C[M,N] = A[M,K] * B[N,K]^T (TN)");
    state.note("timing", fmt::format("device events, {} cache flush before every repetition, median",
                                     format_bytes(static_cast<double>(buffers.flush.bytes()))));
    for (const auto& s : llama70b_training_shapes) {
      if (s.m == problem.m && s.n == problem.n && s.k == problem.k) state.note("shape", s.label);
    }
    state.add_flops(2.0 * static_cast<double>(problem.m) * static_cast<double>(problem.n) *
                    static_cast<double>(problem.k));
    set_peak(state, params.string("dtype"));
    auto& settings = state.mutable_settings();
    settings.min_reps = gpu_gemm_min_reps_within(settings.min_reps, settings.max_time_s, repetition_s);
    settings.max_reps = std::max(settings.max_reps, settings.min_reps);
    settings.min_sample_s = 0;  // one repetition per sample, each with its own flush
    state.measure(gpu_event_timed(stream.get(), flush, [&] { gemm->run(stream.get()); }));
    stream.synchronize();
    verify(state, problem, buffers, scale);
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_gpu_gemm() { return std::make_unique<gpu_gemm_benchmark>(); }

}  // namespace ironbench::benchmarks
