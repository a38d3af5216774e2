// Training measurements as ironbench results: one case per batch size and rank count
// (benchmark train_mlp, train_gpt, train_lora, or ddp_scaling for a --scaling sweep), with the
// metrics of docs/metrics.md ("Training"), the loss curve as a series and the checks that
// decide validity (the loss fell, frozen weights kept, replicas equal).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/result.hpp"
#include "train/train_settings.hpp"
#include "train/training_outcome.hpp"

namespace ironbench::train {

struct training_case_context {
  train_settings settings;     ///< with the batch of this case
  core::device_info device;    ///< the device each rank trains on (its peak FLOP/s give MFU)
  bool scaling_sweep = false;  ///< benchmark ddp_scaling
};

/// The case for one measurement on `ranks` data-parallel ranks.
[[nodiscard]] core::case_result training_case(const training_case_context& context, const training_outcome& outcome,
                                              int ranks);

/// The dense peak FLOP/s of `dtype` on `device` (from its fingerprint) and where it came from;
/// 0 and the reason when unknown.
[[nodiscard]] std::pair<double, std::string> dense_peak(const core::device_info& device, const std::string& dtype);

/// Adds scaling_efficiency = tput(n) / (n x tput(1)) to every case that has a one-rank
/// counterpart with the same parameters otherwise.
void add_scaling_efficiency(std::vector<core::case_result>& cases);

/// Whether the loss fell: the mean of the last three steps below the mean of the first three
/// (fewer when there are fewer than six), every loss finite.
[[nodiscard]] bool loss_fell(const std::vector<step_record>& steps, std::string& why_not);

/// The run's settings block.
[[nodiscard]] json training_settings_json(const train_settings& s, const std::string& device, int threads,
                                          int world_size, const std::vector<std::int64_t>& batches,
                                          const std::vector<std::int64_t>& scaling);

/// The console table: one row per case.
void render_training_table(const core::run_result& run, std::ostream& out);

}  // namespace ironbench::train
