#include "doctor/live_facts.hpp"

#include <chrono>

#include "blas/openblas.hpp"
#include "telemetry/gpu_telemetry.hpp"

namespace ironbench::doctor {

std::vector<gpu_to_check> gpus_to_check(const std::vector<core::device_info>& devices) {
  std::vector<gpu_to_check> gpus;
  for (const auto& d : devices) {
    if (!core::is_gpu(d)) continue;
    gpu_to_check g;
    g.id = d.id;
    g.vendor = d.kind == core::device_kind::hip ? "amd" : "nvidia";
    g.pci_bus_id = d.properties.value("pci_bus_id", std::string());
    const auto& library = telemetry::library_for(d.kind);
    std::string why;
    if (library.library && !g.pci_bus_id.empty()) {
      if (const auto device = library.library->open_device(g.pci_bus_id, why)) g.management = device->static_info();
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

doctor_facts live_facts(const std::vector<core::device_info>& devices) {
  const platform::sysfs_reader reader("/");
  auto facts = gather_facts(reader, checked_environment(), gpus_to_check(devices));
  facts.blas = blas_facts{"openblas", blas::openblas_core_name(), blas::openblas_config()};
  return facts;
}

host_counters live_host_counters() {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return read_host_counters(platform::sysfs_reader("/"), std::chrono::duration<double>(now).count());
}

}  // namespace ironbench::doctor
