// One training measurement on one device: builds the workload's model and optimizer, runs the
// warm-up and timed steps, and reports each step's time and loss. With a gradient transport
// the device is one data-parallel rank of several.
#pragma once

#include <torch/torch.h>

#include <atomic>
#include <functional>

#include "train/gradient_transport.hpp"
#include "train/torch_compat.hpp"
#include "train/train_settings.hpp"
#include "train/training_outcome.hpp"

namespace ironbench::train {

using step_callback = std::function<void(int step, const step_record& record)>;

/// Runs `settings` on `device`. `transport` (nullable) makes this one rank of a data-parallel
/// group: parameters are broadcast from rank 0 and gradients averaged every step; each rank
/// trains on its own rows of the same global batches. Out of memory while building or in the
/// first forward and backward pass is reported in the outcome (agreed over every rank); later
/// on one device too; other errors throw. When `cancel` becomes true the run stops before the
/// next step (every rank at the same step) and the outcome says `interrupted`.
[[nodiscard]] training_outcome run_training(const train_settings& settings, torch::Device device,
                                            gradient_transport* transport, const step_callback& on_step,
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace ironbench::train
