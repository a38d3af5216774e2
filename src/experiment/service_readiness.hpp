// Whether a service is ready to be measured: the model is loaded, not merely a port open.
// With a ready URL, GET URL/v1/models must list the model and a one-token completion must
// succeed; with a log pattern, a line of the service's log must match. Both when both are given.
#pragma once

#include <string>

#include "experiment/experiment_plan.hpp"

namespace ironbench::experiment {

/// One look: "" when the service of `step` is ready, else what is still missing ("GET
/// http://127.0.0.1:8000/v1/models: Connection refused", "no log line matches /.../"). HTTP
/// requests wait at most `request_timeout_s`.
[[nodiscard]] std::string readiness_problem(const planned_step& step, const std::string& log_path,
                                            double request_timeout_s);

}  // namespace ironbench::experiment
