// The machine this process runs on: its fingerprint (with the libraries this build loaded)
// and its devices.
#pragma once

#include "core/json.hpp"
#include "device/device_enumeration.hpp"
#include "platform/host_fingerprint.hpp"

namespace ironbench::session {

struct live_host {
  platform::host_fingerprint fingerprint;
  device::device_enumeration devices;
};

[[nodiscard]] live_host detect_live_host();

/// The fingerprint as an ironbench JSON value.
[[nodiscard]] json host_json(const platform::host_fingerprint& host);

}  // namespace ironbench::session
