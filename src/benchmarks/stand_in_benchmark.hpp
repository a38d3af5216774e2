// A benchmark's implementation on stand-in GPUs (device/stand_in_gpus.hpp): the GPU
// implementation's axes, checks, first look, cost model and footprint (their pure C++ halves),
// and a run that sleeps the case's modelled time times the stand-ins' time scale and reports the
// modelled rates. It measures nothing: it lets the scheduler, the progress lines, the time
// estimate and the reports be tested with several GPUs on any machine.
#pragma once

#include <memory>
#include <string>

#include "core/benchmark.hpp"

namespace ironbench::benchmarks {

/// The stand-in implementation of `name` ("stream", "gemm", "copy", "p2p"), or nullptr for a
/// benchmark without one. It runs on stand-in GPUs only.
[[nodiscard]] std::unique_ptr<core::benchmark> make_stand_in(const std::string& name);

}  // namespace ironbench::benchmarks
