// Where tp_infer's model runs on one rank: the CPU (OpenBLAS, the gather over the MPI world)
// or a GPU (cuBLAS or rocBLAS, the gather with NCCL or RCCL). Each times the forward passes of
// the sharded model and of the whole model alone and checks their output.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "benchmarks/tp/tp_infer_case.hpp"
#include "benchmarks/tp/tp_model.hpp"
#include "comm/communicator.hpp"
#include "core/device_info.hpp"

namespace ironbench::benchmarks {

/// Forward passes of every timed model.
struct tp_passes {
  int iterations = 10;        ///< timed
  int warmup_iterations = 2;  ///< untimed, first
};

class tp_device {
 public:
  virtual ~tp_device() = default;

  /// Times this rank's shard of `shape` on every rank together (a collective call), then
  /// checks that Z is the same on every rank and (rank 0) rows `rows` of it against the
  /// reference.
  [[nodiscard]] virtual tp_timing measure_sharded(const tp_shape& shape, const std::vector<std::int64_t>& rows,
                                                  tp_check& check) = 0;

  /// Times the whole model `shape` (one rank) on this rank alone and checks rows `rows`.
  [[nodiscard]] virtual tp_timing measure_alone(const tp_shape& shape, const std::vector<std::int64_t>& rows,
                                                tp_check& check) = 0;

  /// What computes: "OpenBLAS fp32, 8 threads per rank", or the GPU's GEMM.
  [[nodiscard]] virtual std::string compute() const = 0;
  /// What gathers: "Open MPI v4.1.4 (host buffers)", or the NCCL (RCCL) backend.
  [[nodiscard]] virtual std::string collectives() const = 0;
  /// How the single-device comparison runs.
  [[nodiscard]] virtual std::string single_device() const = 0;
};

/// The device of this rank: GPU `gpu` when given (and the build has GPU collectives), else the
/// CPU. `world` is the job's ranks. Opening the GPU collectives is a collective call.
[[nodiscard]] std::unique_ptr<tp_device> make_tp_device(std::shared_ptr<comm::bootstrap> world,
                                                        const std::optional<core::device_info>& gpu,
                                                        const tp_passes& passes);

/// The CPU device (tp_cpu_rank over `world`).
[[nodiscard]] std::unique_ptr<tp_device> tp_cpu_device(std::shared_ptr<comm::bootstrap> world, const tp_passes& passes);

/// The GPU device (tp_gpu_rank on GPU `gpu_index`, gathers with NCCL or RCCL). Only in builds
/// with GPU collectives.
[[nodiscard]] std::unique_ptr<tp_device> tp_gpu_device(std::shared_ptr<comm::bootstrap> world, int gpu_index,
                                                       const tp_passes& passes);

}  // namespace ironbench::benchmarks
