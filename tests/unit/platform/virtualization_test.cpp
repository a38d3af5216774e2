#include <gtest/gtest.h>

#include "platform/cpu_info.hpp"
#include "platform/virtualization.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

using strings = std::vector<std::string>;

virtualization_info detect_scenario(const std::string& scenario) {
  const sysfs_reader reader(test::scenario_root(scenario));
  return detect_virtualization(reader, test::scenario_cpuid(scenario), detect_cpu(reader).flags);
}

TEST(Virtualization, ClassifiesCpuidVendors) {
  EXPECT_EQ(classify_cpuid_vendor("KVMKVMKVM"), "kvm");
  EXPECT_EQ(classify_cpuid_vendor("Microsoft Hv"), "hyperv");
  EXPECT_EQ(classify_cpuid_vendor("VMwareVMware"), "vmware");
  EXPECT_EQ(classify_cpuid_vendor("XenVMMXenVMM"), "xen");
  EXPECT_EQ(classify_cpuid_vendor("TCGTCGTCGTCG"), "qemu-tcg");
  EXPECT_EQ(classify_cpuid_vendor(" lrpepyh  vr"), "parallels");
  EXPECT_EQ(classify_cpuid_vendor("bhyve bhyve"), "bhyve");
  EXPECT_EQ(classify_cpuid_vendor("ACRNACRNACRN"), "acrn");
  EXPECT_EQ(classify_cpuid_vendor("SomethingNew"), "other");
  EXPECT_EQ(classify_cpuid_vendor(""), "");
}

TEST(Virtualization, ClassifiesDmi) {
  EXPECT_EQ(classify_dmi({"QEMU", "Standard PC (Q35 + ICH9, 2009)", "", ""}), "qemu");
  EXPECT_EQ(classify_dmi({"Red Hat", "KVM", "", ""}), "kvm");
  EXPECT_EQ(classify_dmi({"Amazon EC2", "m7i.large", "", ""}), "aws");
  EXPECT_EQ(classify_dmi({"Google", "Google Compute Engine", "", ""}), "gcp");
  EXPECT_EQ(classify_dmi({"Microsoft Corporation", "Virtual Machine", "", ""}), "hyperv");
  EXPECT_EQ(classify_dmi({"Microsoft Corporation", "Surface Laptop 5", "", ""}), "");
  EXPECT_EQ(classify_dmi({"VMware, Inc.", "VMware7,1", "", ""}), "vmware");
  EXPECT_EQ(classify_dmi({"innotek GmbH", "VirtualBox", "", ""}), "virtualbox");
  EXPECT_EQ(classify_dmi({"OpenStack Foundation", "OpenStack Nova", "", ""}), "openstack");
  EXPECT_EQ(classify_dmi({"Dell Inc.", "PowerEdge R760", "", ""}), "");
}

TEST(Virtualization, BareMetalHasNoEvidence) {
  const auto v = detect_scenario("bare_metal_2socket");
  EXPECT_FALSE(v.is_virtual_machine);
  EXPECT_TRUE(v.evidence.empty());
  EXPECT_EQ(v.hypervisor, "");
  EXPECT_EQ(v.dmi.sys_vendor, "Dell Inc.");
  EXPECT_EQ(v.dmi.product_name, "PowerEdge R760");
  EXPECT_TRUE(v.cpuid_available);
  EXPECT_FALSE(v.cpuid_hypervisor_bit);
}

TEST(Virtualization, KvmGuest) {
  const auto v = detect_scenario("kvm_vm");
  EXPECT_TRUE(v.is_virtual_machine);
  EXPECT_EQ(v.hypervisor, "kvm");
  EXPECT_TRUE(v.cpuinfo_hypervisor_flag);
  EXPECT_EQ(v.dmi.sys_vendor, "QEMU");
  EXPECT_EQ(v.dmi.bios_vendor, "SeaBIOS");
  EXPECT_EQ(v.evidence, (strings{"cpuid hypervisor bit", "cpuid vendor KVMKVMKVM", "cpuinfo hypervisor flag",
                                 "dmi sys_vendor QEMU"}));
}

TEST(Virtualization, DmiAloneIsEnoughAndNamesTheHypervisor) {
  const sysfs_reader reader(test::scenario_root("kvm_vm"));
  const auto v = detect_virtualization(reader, test::no_cpuid(), {});
  EXPECT_TRUE(v.is_virtual_machine);
  EXPECT_EQ(v.hypervisor, "qemu");
  EXPECT_EQ(v.evidence, (strings{"dmi sys_vendor QEMU"}));
}

TEST(Virtualization, HypervisorBitAloneCounts) {
  test::temp_dir dir;
  const auto v = detect_virtualization(sysfs_reader(dir.path()), {true, true, ""}, {});
  EXPECT_TRUE(v.is_virtual_machine);
  EXPECT_EQ(v.hypervisor, "unknown");
  EXPECT_EQ(v.evidence, (strings{"cpuid hypervisor bit"}));
}

TEST(Virtualization, XenFromSysHypervisor) {
  test::temp_dir dir;
  dir.write("sys/hypervisor/type", "xen\n");
  const auto v = detect_virtualization(sysfs_reader(dir.path()), test::no_cpuid(), {});
  EXPECT_EQ(v.hypervisor, "xen");
  EXPECT_EQ(v.evidence, (strings{"sys/hypervisor/type xen"}));
}

TEST(Virtualization, ContainerInVmAndAarch64) {
  const auto vm = detect_scenario("container_in_vm");
  EXPECT_TRUE(vm.is_virtual_machine);
  EXPECT_EQ(vm.hypervisor, "kvm");
  EXPECT_TRUE(vm.dmi.sys_vendor.empty());
  const auto arm = detect_scenario("aarch64_host");
  EXPECT_FALSE(arm.is_virtual_machine);
  EXPECT_FALSE(arm.cpuid_available);
}

TEST(Virtualization, UnavailableCpuidIsIgnored) {
  test::temp_dir dir;
  const auto v = detect_virtualization(sysfs_reader(dir.path()), {false, true, "KVMKVMKVM"}, {});
  EXPECT_FALSE(v.is_virtual_machine);
}

TEST(Virtualization, ReadCpuidOnThisMachine) {
  const auto probe = read_cpuid();
#if defined(__x86_64__)
  EXPECT_TRUE(probe.available);
  if (!probe.hypervisor_bit) {
    EXPECT_TRUE(probe.hypervisor_vendor.empty());
  }
  EXPECT_LE(probe.hypervisor_vendor.size(), 12u);
#else
  EXPECT_FALSE(probe.available);
#endif
}

}  // namespace
}  // namespace ironbench::platform
