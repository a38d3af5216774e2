// What one tp_infer run is configured by (the batch and hidden sizes it sweeps, the forward
// passes it times, the collective backend, the progress timeout) and the checks that reject
// settings which cannot run, with the messages the command line shows. The backend is checked
// against comm's backend table by run_tp_infer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "comm/injected_fault.hpp"

namespace ironbench::benchmarks {

struct tp_infer_settings {
  std::vector<std::int64_t> batches = {128, 512, 2048};  ///< rows of X, swept (slowest)
  std::vector<std::int64_t> hidden_sizes = {1024};       ///< H (F = 4 H), swept
  int iterations = 10;                                   ///< timed forward passes per case
  int warmup_iterations = 2;                             ///< untimed forward passes first
  std::string backend = "auto";                          ///< a name of tp_infer_backends() (tp_infer_run.hpp)
  double timeout_s = 600;                                ///< end the run after this long without progress
  comm::injected_fault fault;                            ///< --inject-fault: hang@R or exit@R (none by default)
};

/// The batch and hidden sizes of --batch and --hidden (lists or ranges such as 128:32768:x4)
/// into `settings`. Throws usage_error for malformed text.
void parse_tp_infer_sizes(const std::string& batch, const std::string& hidden, tp_infer_settings& settings);

/// Throws usage_error unless iterations >= 1 and warmup_iterations >= 0.
void check_tp_iterations(const tp_infer_settings& settings);

/// Throws usage_error when a batch or hidden size is not positive, or F = 4 H does not split
/// over `ranks` ranks.
void check_tp_sizes(const tp_infer_settings& settings, int ranks);

}  // namespace ironbench::benchmarks
