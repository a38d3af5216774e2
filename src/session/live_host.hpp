// The machine this process runs on: its fingerprint (with the libraries this build loaded)
// and its devices.
#pragma once

#include <memory>

#include "core/json.hpp"
#include "device/device_enumeration.hpp"
#include "platform/host_fingerprint.hpp"
#include "telemetry/hardware_error_watch.hpp"

namespace ironbench::session {

struct live_host {
  platform::host_fingerprint fingerprint;
  device::device_enumeration devices;
  /// The GPUs' (and the host's EDAC) hardware error counters, watched from detection on
  /// (finish_run reads them again); null where nothing watches them.
  std::shared_ptr<telemetry::hardware_error_watch> hardware_errors;
  telemetry::error_counter_reading hardware_errors_before;  ///< read at detection
};

[[nodiscard]] live_host detect_live_host();

/// The fingerprint as an ironbench JSON value.
[[nodiscard]] json host_json(const platform::host_fingerprint& host);

}  // namespace ironbench::session
