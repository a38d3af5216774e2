// One load point of a sweep, from requests to its case: warm-ups, this rank's share of the
// load, the server's /metrics and GPUs watched beside it, every rank's requests merged at rank
// 0, then the point reported, saved and added to the sweep's outcome.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "serve/sweep/serve_sweep.hpp"

namespace ironbench::serve {

/// Passes `line` to `sink` when there is one.
void say(const std::function<void(const std::string&)>& sink, const std::string& line);

/// One point at `load`'s rate and concurrency: sends the warm-ups, measures `requests`,
/// reports and saves it (`named`: under --result-filename), and adds its case and vLLM object
/// to `out` (on rank 0). True when it was interrupted.
[[nodiscard]] bool run_point(const sweep_settings& s, const load_settings& load, std::vector<prepared_request> requests,
                             bool named, const std::atomic<bool>* cancel, const sweep_callbacks& callbacks,
                             sweep_outcome& out);

}  // namespace ironbench::serve
