#include "platform/virtualization.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ironbench::platform {

cpuid_probe read_cpuid() {
  cpuid_probe probe;
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return probe;
  probe.available = true;
  probe.hypervisor_bit = (ecx >> 31) & 1u;
  // Leaf 0x40000000 is only defined when the hypervisor bit is set.
  if (probe.hypervisor_bit) {
    __cpuid(0x40000000, eax, ebx, ecx, edx);
    char vendor[13] = {};
    std::memcpy(vendor + 0, &ebx, 4);
    std::memcpy(vendor + 4, &ecx, 4);
    std::memcpy(vendor + 8, &edx, 4);
    std::string text(vendor, 12);
    while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
    text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
    probe.hypervisor_vendor = text;
  }
#endif
  return probe;
}

std::string classify_cpuid_vendor(const std::string& vendor) {
  static constexpr std::array<std::pair<const char*, const char*>, 8> table{{
      {"KVMKVMKVM", "kvm"},
      {"Microsoft Hv", "hyperv"},
      {"VMwareVMware", "vmware"},
      {"XenVMMXenVMM", "xen"},
      {"TCGTCGTCGTCG", "qemu-tcg"},
      {" lrpepyh  vr", "parallels"},
      {"bhyve bhyve", "bhyve"},
      {"ACRNACRNACRN", "acrn"},
  }};
  if (vendor.empty()) return {};
  for (const auto& [id, name] : table) {
    // Compare without trailing spaces: probes trim them ("bhyve bhyve " -> "bhyve bhyve").
    std::string key = id;
    while (!key.empty() && key.back() == ' ') key.pop_back();
    if (vendor == key) return name;
  }
  return "other";
}

std::string classify_dmi(const dmi_info& dmi) {
  const auto& v = dmi.sys_vendor;
  const auto& p = dmi.product_name;
  if (v == "QEMU") return "qemu";
  if (p == "KVM") return "kvm";
  if (v == "Amazon EC2") return "aws";
  if (v == "Google" || p == "Google Compute Engine") return "gcp";
  if (v == "Microsoft Corporation" && p == "Virtual Machine") return "hyperv";
  if (v == "VMware, Inc.") return "vmware";
  if (v == "innotek GmbH" || p == "VirtualBox") return "virtualbox";
  if (v == "OpenStack Foundation" || p == "OpenStack Nova") return "openstack";
  if (v == "Xen") return "xen";
  if (v == "Parallels Software International Inc.") return "parallels";
  return {};
}

virtualization_info detect_virtualization(const sysfs_reader& reader, const cpuid_probe& cpuid,
                                          const std::vector<std::string>& cpuinfo_flags) {
  virtualization_info info;
  info.cpuid_available = cpuid.available;
  info.cpuid_hypervisor_bit = cpuid.available && cpuid.hypervisor_bit;
  info.cpuid_hypervisor_vendor = cpuid.available ? cpuid.hypervisor_vendor : std::string();
  info.cpuinfo_hypervisor_flag =
      std::find(cpuinfo_flags.begin(), cpuinfo_flags.end(), "hypervisor") != cpuinfo_flags.end();
  const std::string dmi_dir = "sys/class/dmi/id/";
  info.dmi.sys_vendor = reader.read_text(dmi_dir + "sys_vendor").value_or("");
  info.dmi.product_name = reader.read_text(dmi_dir + "product_name").value_or("");
  info.dmi.board_vendor = reader.read_text(dmi_dir + "board_vendor").value_or("");
  info.dmi.bios_vendor = reader.read_text(dmi_dir + "bios_vendor").value_or("");
  info.sys_hypervisor_type = reader.read_text("sys/hypervisor/type").value_or("");

  // Evidence, strongest first. A bare-metal host never sets the hypervisor bit, so the bit
  // alone counts.
  auto& evidence = info.evidence;
  if (info.cpuid_hypervisor_bit) evidence.push_back("cpuid hypervisor bit");
  if (!info.cpuid_hypervisor_vendor.empty()) {
    evidence.push_back("cpuid vendor " + info.cpuid_hypervisor_vendor);
  }
  if (info.cpuinfo_hypervisor_flag) evidence.push_back("cpuinfo hypervisor flag");
  if (!info.sys_hypervisor_type.empty()) {
    evidence.push_back("sys/hypervisor/type " + info.sys_hypervisor_type);
  }
  const std::string dmi_name = classify_dmi(info.dmi);
  if (!dmi_name.empty()) {
    const bool by_product = info.dmi.product_name == "KVM" || info.dmi.product_name == "Google Compute Engine" ||
                            info.dmi.product_name == "VirtualBox" || info.dmi.product_name == "OpenStack Nova";
    evidence.push_back(by_product ? "dmi product_name " + info.dmi.product_name
                                  : "dmi sys_vendor " + info.dmi.sys_vendor);
  }
  info.is_virtual_machine = !evidence.empty();

  // Name: CPUID vendor, then /sys/hypervisor, then DMI.
  info.hypervisor = classify_cpuid_vendor(info.cpuid_hypervisor_vendor);
  if (info.hypervisor.empty() && info.sys_hypervisor_type == "xen") info.hypervisor = "xen";
  if (info.hypervisor.empty()) info.hypervisor = dmi_name;
  if (info.hypervisor.empty() && info.is_virtual_machine) info.hypervisor = "unknown";
  return info;
}

}  // namespace ironbench::platform
