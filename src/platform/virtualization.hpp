// Is this host a virtual machine, and under which hypervisor? Evidence comes from CPUID
// (injected as data so tests can fake it), DMI, /sys/hypervisor and the cpuinfo flags.
#pragma once

#include <string>
#include <vector>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// What CPUID says about virtualization.
struct cpuid_probe {
  bool available = false;         ///< false on non-x86 builds (then the rest is meaningless)
  bool hypervisor_bit = false;    ///< leaf 1, ECX bit 31: "running under a hypervisor"
  std::string hypervisor_vendor;  ///< leaf 0x40000000 EBX,ECX,EDX, e.g. "KVMKVMKVM"; trailing
                                  ///< NULs and spaces trimmed; empty without the bit
};

/// Executes CPUID on this machine (x86 only; elsewhere returns available = false).
[[nodiscard]] cpuid_probe read_cpuid();

/// DMI identification strings from sys/class/dmi/id (empty when absent, as in containers and
/// many VMs without SMBIOS).
struct dmi_info {
  std::string sys_vendor;    ///< "Dell Inc.", "QEMU", "Amazon EC2"
  std::string product_name;  ///< "PowerEdge R760", "Standard PC (Q35 + ICH9, 2009)"
  std::string board_vendor;
  std::string bios_vendor;
};

/// Virtualization facts and the verdict drawn from them.
struct virtualization_info {
  bool cpuid_available = false;       ///< CPUID was executed (x86)
  bool cpuid_hypervisor_bit = false;  ///< see cpuid_probe
  std::string cpuid_hypervisor_vendor;
  bool cpuinfo_hypervisor_flag = false;  ///< "hypervisor" in the cpuinfo flags
  dmi_info dmi;
  std::string sys_hypervisor_type;  ///< sys/hypervisor/type ("xen"), empty when absent
  /// Classified hypervisor: "kvm", "hyperv", "vmware", "xen", "qemu-tcg", "parallels",
  /// "bhyve", "acrn", "qemu", "aws", "gcp", "virtualbox", "openstack", "other" (a hypervisor
  /// vendor not in the table), "unknown" (signs of a VM but no name); empty on bare metal.
  std::string hypervisor;
  std::vector<std::string> evidence;  ///< what was seen, e.g. "cpuid vendor KVMKVMKVM"
  bool is_virtual_machine = false;    ///< any evidence at all
};

/// Maps a CPUID hypervisor vendor string to a hypervisor name ("KVMKVMKVM" -> "kvm");
/// "other" for a non-empty unknown vendor, "" for an empty one.
[[nodiscard]] std::string classify_cpuid_vendor(const std::string& vendor);

/// Maps DMI strings of a known virtual platform to a name ("QEMU" -> "qemu", "Amazon EC2"
/// -> "aws"); empty when DMI names no virtual platform (e.g. "Dell Inc.").
[[nodiscard]] std::string classify_dmi(const dmi_info& dmi);

/// Collects the evidence and classifies it. `cpuinfo_flags` is the cpuinfo flag list.
[[nodiscard]] virtualization_info detect_virtualization(const sysfs_reader& reader, const cpuid_probe& cpuid,
                                                        const std::vector<std::string>& cpuinfo_flags);

}  // namespace ironbench::platform
