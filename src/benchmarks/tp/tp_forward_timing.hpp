// Timing and checking the forward passes of a tp model (tp_cpu_rank or tp_gpu_rank), shared
// by the devices of tp_device.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "benchmarks/tp/tp_device.hpp"
#include "comm/communicator.hpp"
#include "core/statistics.hpp"

namespace ironbench::benchmarks {

/// Runs the warm-up passes, waits for every rank of `world` (when given), then times the
/// passes; latency and gather are the slowest rank's means.
template <typename Model>
tp_timing time_forwards(Model& model, const typename Model::gather_function& gather, const tp_passes& passes,
                        comm::bootstrap* world) {
  for (int i = 0; i < passes.warmup_iterations; ++i) (void)model.forward(gather);
  if (world != nullptr) world->barrier();
  tp_timing t;
  double gather_total = 0;
  for (int i = 0; i < passes.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    gather_total += model.forward(gather);
    t.samples_s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double mean = core::summarize(t.samples_s).mean;
  t.latency_s = world != nullptr ? world->max(mean) : mean;
  t.gather_s = world != nullptr ? world->max(gather_total / passes.iterations) : gather_total / passes.iterations;
  return t;
}

/// Times `model` (this rank's shard) on every rank, then checks that every rank holds the
/// same Z and (rank 0) rows `rows` of it against the reference.
template <typename Model>
tp_timing measure_shard(Model& model, const tp_shape& shape, const typename Model::gather_function& gather,
                        const tp_passes& passes, comm::bootstrap& world, const std::vector<std::int64_t>& rows,
                        tp_check& check) {
  const auto t = time_forwards(model, gather, passes, &world);
  const std::vector<float> z = model.output();
  double checksum = 0;
  for (float v : z) checksum += v;
  const bool replicated = world.max(checksum) == world.min(checksum);
  if (world.rank() == 0) check.wrong = tp_check_rows(shape, z, rows, check.detail);
  if (!replicated) {
    check.wrong += 1;
    check.detail = "Z differs between ranks";
  }
  return t;
}

/// Times `model` (the whole model) on this rank alone and checks rows `rows` of Z.
template <typename Model>
tp_timing measure_whole(Model& model, const tp_shape& shape, const typename Model::gather_function& gather,
                        const tp_passes& passes, const std::vector<std::int64_t>& rows, tp_check& check) {
  const auto t = time_forwards(model, gather, passes, nullptr);
  check.wrong = tp_check_rows(shape, model.output(), rows, check.detail);
  return t;
}

}  // namespace ironbench::benchmarks
