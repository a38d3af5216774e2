// The hardware error counters: each counter's class, the delta between two readings, amdgpu's
// RAS count files, and the counters read through the stand-in NVML and ROCm SMI (rising on
// demand, flat by default), amdgpu's sysfs and the host's EDAC files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "telemetry/hardware_error_counters.hpp"
#include "telemetry/hardware_error_watch.hpp"
#include "temp_dir.hpp"

namespace ironbench::telemetry {
namespace {

TEST(HardwareErrorCounters, ClassesByName) {
  EXPECT_EQ(class_of("ecc_corrected_volatile"), error_class::corrected);
  EXPECT_EQ(class_of("remapped_rows_correctable"), error_class::corrected);
  EXPECT_EQ(class_of("ras_umc_ce"), error_class::corrected);
  EXPECT_EQ(class_of("edac_mc0_ce"), error_class::corrected);
  EXPECT_EQ(class_of("ecc_uncorrected_volatile"), error_class::uncorrected);
  EXPECT_EQ(class_of("remapping_failed"), error_class::uncorrected);
  EXPECT_EQ(class_of("ras_gfx_ue"), error_class::uncorrected);
  EXPECT_EQ(class_of("remapped_rows_pending"), error_class::pending);
  EXPECT_EQ(class_of("retired_pages_pending"), error_class::pending);
  EXPECT_EQ(class_of("pcie_replays"), error_class::link_replay);
  EXPECT_EQ(class_of("something_new"), error_class::uncorrected);
  EXPECT_TRUE(hardware_xid(79));
  EXPECT_TRUE(hardware_xid(48));
  EXPECT_FALSE(hardware_xid(13));
  EXPECT_FALSE(hardware_xid(31));
}

TEST(HardwareErrorCounters, DeltaRisesResetsAndXids) {
  error_counter_reading before{{{"cuda:0", "nvml", {{"ecc_corrected_volatile", 4}, {"pcie_replays", 9}}, {}, {}},
                                {"cuda:1", "nvml", {{"ecc_corrected_volatile", 0}}, {}, {}}}};
  error_counter_reading after{{{"cuda:0", "nvml", {{"ecc_corrected_volatile", 6}, {"pcie_replays", 2}}, {79}, {}},
                               {"cuda:1", "nvml", {{"ecc_corrected_volatile", 0}, {"new_counter", 3}}, {}, {}}}};
  const auto d = delta_between(before, after);
  ASSERT_EQ(d.rises.size(), 1U);
  EXPECT_EQ(d.rises[0].device, "cuda:0");
  EXPECT_EQ(d.rises[0].before, 4U);
  EXPECT_EQ(d.rises[0].after, 6U);
  ASSERT_EQ(d.resets.size(), 1U);  // the replay count fell: a driver reload, not a rise
  EXPECT_EQ(d.resets[0].counter, "pcie_replays");
  EXPECT_EQ(d.xids.at("cuda:0"), (std::vector<unsigned>{79}));
  const auto back = delta_from_json(to_json(d));
  EXPECT_EQ(back.rises.size(), 1U);
  EXPECT_EQ(back.rises[0].cls, error_class::corrected);
  EXPECT_EQ(back.xids.at("cuda:0"), (std::vector<unsigned>{79}));
  EXPECT_TRUE(delta_between(before, before).empty());
}

TEST(HardwareErrorCounters, AmdgpuRasCountFiles) {
  std::map<std::string, std::uint64_t> c;
  EXPECT_TRUE(parse_amdgpu_ras_count("umc", "ue: 2\nce: 17\n", c));
  EXPECT_EQ(c.at("ras_umc_ue"), 2U);
  EXPECT_EQ(c.at("ras_umc_ce"), 17U);
  EXPECT_FALSE(parse_amdgpu_ras_count("gfx", "not a count\n", c));
}

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

core::device_info gpu(const char* id, core::device_kind kind, const char* bus) {
  core::device_info d;
  d.id = id;
  d.kind = kind;
  d.properties = {{"pci_bus_id", bus}};
  return d;
}

TEST(HardwareErrorWatch, StandInNvmlFlatRisingAndXids) {
  setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
  static const auto nvml = open_nvml();
  ASSERT_TRUE(nvml.library) << nvml.unavailable_reason;
  testing::temp_dir root;
  const auto lookup = [](core::device_kind) -> const opened_library& { return nvml; };
  hardware_error_watch watch({gpu("cuda:0", core::device_kind::cuda, "0000:1B:00.0"), core::device_info{}}, lookup,
                             root.path().string());
  const auto first = watch.read();
  ASSERT_EQ(first.devices.size(), 1U);  // the CPU is not watched; this tree has no EDAC
  for (const char* name : {"ecc_corrected_volatile", "ecc_uncorrected_volatile", "remapped_rows_pending",
                           "remapping_failed", "pcie_replays"}) {
    EXPECT_TRUE(first.devices[0].counters.contains(name)) << name;
  }
  EXPECT_TRUE(delta_between(first, watch.read()).empty());

  setenv("FAKE_NVML_PCIE_REPLAYS_STEP", "3", 1);
  setenv("FAKE_NVML_XIDS", "79,13", 1);
  const auto before = watch.read();
  const auto after = watch.read();
  unsetenv("FAKE_NVML_PCIE_REPLAYS_STEP");
  unsetenv("FAKE_NVML_XIDS");
  const auto d = delta_between(before, after);
  ASSERT_EQ(d.rises.size(), 1U);
  EXPECT_EQ(d.rises[0].counter, "pcie_replays");
  EXPECT_EQ(d.rises[0].after - d.rises[0].before, 3U);
  EXPECT_EQ(d.xids.at("cuda:0"), (std::vector<unsigned>{79, 13}));

  setenv("FAKE_NVML_NO_EVENTS", "1", 1);
  hardware_error_watch no_events({gpu("cuda:0", core::device_kind::cuda, "0000:1B:00.0")}, lookup,
                                 root.path().string());
  unsetenv("FAKE_NVML_NO_EVENTS");
  const auto r = no_events.read();
  ASSERT_EQ(r.devices.size(), 1U);
  ASSERT_FALSE(r.devices[0].not_read.empty());
  EXPECT_NE(r.devices[0].not_read.back().find("nvmlDeviceRegisterEvents"), std::string::npos);
}

TEST(HardwareErrorWatch, StandInRocmSmiAndAmdgpuSysfsAndEdac) {
  setenv("IRONBENCH_ROCM_SMI_LIBRARY", IRONBENCH_FAKE_ROCM_SMI, 1);
  static const auto rocm = open_rocm_smi();
  ASSERT_TRUE(rocm.library) << rocm.unavailable_reason;
  testing::temp_dir root;
  write(root.path() / "sys/bus/pci/devices/0000:0c:00.0/ras/umc_err_count", "ue: 0\nce: 5\n");
  write(root.path() / "sys/devices/system/edac/mc/mc0/ce_count", "1\n");
  write(root.path() / "sys/devices/system/edac/mc/mc0/ue_count", "0\n");
  const auto lookup = [](core::device_kind) -> const opened_library& { return rocm; };
  hardware_error_watch watch({gpu("hip:0", core::device_kind::hip, "0000:0c:00.0")}, lookup, root.path().string());
  setenv("FAKE_RSMI_UMC_UE_STEP", "1", 1);
  const auto before = watch.read();
  const auto after = watch.read();
  unsetenv("FAKE_RSMI_UMC_UE_STEP");
  ASSERT_EQ(after.devices.size(), 2U);
  EXPECT_EQ(after.devices[0].source, "rocm_smi");
  EXPECT_EQ(after.devices[1].device, "host");
  EXPECT_EQ(after.devices[1].counters.at("edac_mc0_ce"), 1U);
  const auto d = delta_between(before, after);
  ASSERT_EQ(d.rises.size(), 1U);
  EXPECT_EQ(d.rises[0].counter, "ras_umc_ue");
  EXPECT_EQ(d.rises[0].cls, error_class::uncorrected);

  // Without ROCm SMI's counts, the driver's sysfs files.
  setenv("FAKE_RSMI_NO_ECC", "1", 1);
  const auto sysfs = watch.read();
  unsetenv("FAKE_RSMI_NO_ECC");
  EXPECT_EQ(sysfs.devices[0].source, "rocm_smi and amdgpu sysfs");
  EXPECT_EQ(sysfs.devices[0].counters.at("ras_umc_ce"), 5U);
}

}  // namespace
}  // namespace ironbench::telemetry
