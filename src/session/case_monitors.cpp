#include "session/case_monitors.hpp"

#include <memory>

#include "platform/host_load_monitor.hpp"
#include "telemetry/case_telemetry.hpp"

namespace ironbench::session {

core::case_monitor_factory case_monitors(std::chrono::milliseconds gpu_interval) {
  return core::combine_monitors({telemetry::gpu_case_monitors(gpu_interval),
                                 platform::host_load_monitors(std::make_shared<const platform::sysfs_reader>("/"))});
}

}  // namespace ironbench::session
