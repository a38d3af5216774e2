#include "session/live_host.hpp"

#include "blas/openblas_kernels.hpp"
#include "core/json_text.hpp"
#include "device/cpu/cpu_clock.hpp"
#include "device/cpu/cpu_device.hpp"
#include "telemetry/case_telemetry.hpp"

namespace ironbench::session {

live_host detect_live_host() {
  live_host host;
  host.fingerprint = platform::detect_host(platform::live_probe_sources());
  host.fingerprint.software.add_library("openblas", blas::openblas_description());
  auto& frequency = host.fingerprint.cpu.frequency;
  frequency.measured_mhz = device::measure_cpu_clock_mhz();
  frequency.frequency_source = frequency.nominal().source;
  host.devices = device::enumerate_devices(host.fingerprint);
  for (auto& d : host.devices.devices) {
    if (d.kind == core::device_kind::cpu) device::add_measured_cpu_flops(d);
  }
  for (auto& d : host.devices.devices) telemetry::describe_gpu_telemetry(d);
  host.hardware_errors = std::make_shared<telemetry::hardware_error_watch>(host.devices.devices);
  host.hardware_errors_before = host.hardware_errors->read();
  return host;
}

json host_json(const platform::host_fingerprint& host) { return json::parse(core::json_text(platform::to_json(host))); }

}  // namespace ironbench::session
