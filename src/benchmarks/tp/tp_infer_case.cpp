#include "benchmarks/tp/tp_infer_case.hpp"

#include <fmt/format.h>

#include "core/statistics.hpp"

namespace ironbench::benchmarks {

core::case_result tp_infer_case(const tp_shape& shape, const char* mode, const tp_timing& t, const tp_check& check,
                                int iterations, const std::string& device) {
  core::case_result c;
  c.benchmark = "tp_infer";
  c.device = fmt::format("{} ranks", shape.ranks);
  c.notes["device"] = device;
  c.params.set("batch", shape.batch);
  c.params.set("hidden", shape.hidden);
  c.params.set("ranks", std::int64_t{shape.ranks});
  c.params.set("mode", std::string(mode));
  core::measurement m;
  m.samples_s = t.samples_s;
  m.total_iterations = static_cast<std::size_t>(iterations);
  m.stop = core::stop_reason::max_reps;
  m.time_s = core::summarize(t.samples_s);
  c.timing = m;
  c.work.flops = shape.flops();
  c.metrics.push_back({"latency_ms", t.latency_s * 1e3, "ms", "forward pass, mean, slowest rank"});
  c.metrics.push_back({"throughput", static_cast<double>(shape.batch) / t.latency_s, "samples/s", "batch / latency"});
  c.metrics.push_back({"tflops", shape.flops() / t.latency_s / 1e12, "TFLOP/s", "4 B H F / latency"});
  if (shape.ranks > 1) {
    c.metrics.push_back({"gather_ms", t.gather_s * 1e3, "ms", "all_gather per forward, slowest rank"});
    c.metrics.push_back({"gather_share", t.gather_s / t.latency_s, "", "all_gather time / forward time"});
  }
  c.notes["model"] =
      fmt::format("Z = relu(X W1) W2, X {}x{}, W1 {}x{} split in {} column shards, W2 {}x{}, fp32", shape.batch,
                  shape.hidden, shape.hidden, shape.ffn(), shape.ranks, shape.ffn(), shape.hidden);
  c.notes["verification"] = "rows 0 and B-1 of Z against an extended-precision reference; Z equal on every rank";
  if (check.wrong > 0) {
    c.status = core::case_status::invalid;
    c.reason = fmt::format("{} wrong elements: {}", check.wrong, check.detail);
  }
  return c;
}

void add_tp_speedup(core::case_result& tp, double single_latency_s, double tp_latency_s, int ranks) {
  const double speedup = single_latency_s / tp_latency_s;
  tp.metrics.push_back({"speedup", speedup, "x", "single-device latency / tensor-parallel latency"});
  tp.metrics.push_back({"efficiency", speedup / ranks, "", "speedup / ranks"});
}

}  // namespace ironbench::benchmarks
