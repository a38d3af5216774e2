// What one tp_infer run is configured by (the batch and hidden sizes it sweeps, the forward
// passes it times, the collective backend, the progress timeout) and the checks that reject
// settings which cannot run, with the messages the command line shows.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::benchmarks {

struct tp_infer_settings {
  std::vector<std::int64_t> batches = {128, 512, 2048};  ///< rows of X, swept (slowest)
  std::vector<std::int64_t> hidden_sizes = {1024};       ///< H (F = 4 H), swept
  int iterations = 10;                                   ///< timed forward passes per case
  int warmup_iterations = 2;                             ///< untimed forward passes first
  std::string backend = "auto";                          ///< a name of tp_backends
  double timeout_s = 600;                                ///< end the run after this long without progress
};

/// One choice of --backend: its name, whether it names GPU collectives (NCCL or RCCL), and
/// whether it takes GPUs when every rank has one.
struct tp_backend {
  std::string_view name;
  bool gpu_collectives = false;  ///< needs a build with GPU collectives
  bool auto_gpus = false;        ///< takes GPUs whenever the build has GPU collectives
};

/// The collective backends tp_infer accepts, in the order the messages list them.
inline constexpr std::array<tp_backend, 4> tp_backends = {{
    {"auto", false, true},
    {"mpi", false, false},
    {"nccl", true, false},
    {"rccl", true, false},
}};

/// The row of tp_backends named `name`; throws usage_error ("unknown --backend 'x' (auto,
/// mpi, nccl, rccl)") for any other.
[[nodiscard]] const tp_backend& find_tp_backend(std::string_view name);

/// Throws usage_error when `backend` is unknown, or names GPU collectives that this build
/// (`gpu_collectives_built`) lacks.
void check_tp_backend(std::string_view backend, bool gpu_collectives_built);

/// Whether the ranks should run on GPUs (when every rank has one): `backend` names GPU
/// collectives, or is auto and the build has them.
[[nodiscard]] bool tp_backend_wants_gpus(std::string_view backend, bool gpu_collectives_built);

/// The batch and hidden sizes of --batch and --hidden (lists or ranges such as 128:32768:x4)
/// into `settings`. Throws usage_error for malformed text.
void parse_tp_infer_sizes(const std::string& batch, const std::string& hidden, tp_infer_settings& settings);

/// Throws usage_error unless iterations >= 1 and warmup_iterations >= 0.
void check_tp_iterations(const tp_infer_settings& settings);

/// Throws usage_error when a batch or hidden size is not positive, or F = 4 H does not split
/// over `ranks` ranks.
void check_tp_sizes(const tp_infer_settings& settings, int ranks);

}  // namespace ironbench::benchmarks
