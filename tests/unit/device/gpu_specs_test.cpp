#include "device/gpu/gpu_specs.hpp"

#include <gtest/gtest.h>

namespace ironbench::device {
namespace {

std::string model_of(const std::string& name) {
  const auto* sheet = find_gpu_datasheet(name);
  return sheet == nullptr ? "none" : sheet->model;
}

TEST(GpuSpecs, DeviceNamesAsRuntimesReportThemFindTheirDatasheet) {
  EXPECT_EQ(model_of("NVIDIA H100 80GB HBM3"), "H100 SXM");
  EXPECT_EQ(model_of("NVIDIA H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(model_of("NVIDIA H100 NVL"), "H100 NVL");
  EXPECT_EQ(model_of("NVIDIA H200"), "H200 SXM");
  EXPECT_EQ(model_of("NVIDIA H200 NVL"), "H200 NVL");
  EXPECT_EQ(model_of("NVIDIA A100-SXM4-80GB"), "A100 SXM 80GB");
  EXPECT_EQ(model_of("NVIDIA A100-SXM4-40GB"), "A100 SXM 40GB");
  EXPECT_EQ(model_of("NVIDIA A100-PCIE-40GB"), "A100 PCIe 40GB");
  EXPECT_EQ(model_of("NVIDIA A100 80GB PCIe"), "A100 PCIe 80GB");
  EXPECT_EQ(model_of("NVIDIA B200"), "B200");
  EXPECT_EQ(model_of("AMD Instinct MI300X"), "MI300X");
  EXPECT_EQ(model_of("AMD Instinct MI325X"), "MI325X");
  EXPECT_EQ(model_of("AMD Instinct MI350X"), "MI350X");
  EXPECT_EQ(model_of("AMD Instinct MI355X"), "MI355X");
  EXPECT_EQ(model_of("NVIDIA L40S"), "L40S");
  EXPECT_EQ(model_of("NVIDIA GB200"), "GB200");
  EXPECT_EQ(model_of("NVIDIA RTX 6000 Ada Generation"), "none");
  EXPECT_EQ(model_of("NVIDIA GH200 480GB"), "GH200 96GB HBM3");
  EXPECT_EQ(model_of("NVIDIA GH200 144G HBM3e"), "GH200 144GB HBM3e");
}

TEST(GpuSpecs, PartitionsGetTheirShareOfTheComputePeakAndAreNamedAsSuch) {
  // An H100 MIG 1g.10gb instance has 16 of the 132 SMs; an MI300X CPX partition 38 of 304 CUs.
  const auto mig = gpu_peak_flops({"NVIDIA H100 80GB HBM3 MIG 1g.10gb", "sm_90", 16, 1980, 2619, 5120});
  EXPECT_DOUBLE_EQ(mig.at("bf16").at("flops_per_second").get<double>(), 989.4e12 * 16 / 132);
  EXPECT_NE(mig.at("bf16").at("source").get<std::string>().find("x 16/132 SMs: a partition"), std::string::npos);
  const auto cpx = gpu_peak_flops({"AMD Instinct MI300X", "gfx942", 38, 2100, 1300, 8192});
  EXPECT_DOUBLE_EQ(cpx.at("fp8").at("flops_per_second").get<double>(), 2614.9e12 * 38 / 304);
  const auto bandwidth = gpu_peak_bandwidth({"AMD Instinct MI300X", "gfx942", 38, 2100, 1300, 8192});
  EXPECT_DOUBLE_EQ(bandwidth.at("bytes_per_second").get<double>(), 5300e9);
  EXPECT_NE(bandwidth.at("source").get<std::string>().find("the whole GPU's: this partition has 38 of its 304 CUs"),
            std::string::npos);
  // The whole chip keeps the datasheet's figures unscaled.
  const auto whole = gpu_peak_flops({"AMD Instinct MI300X", "gfx942", 304, 2100, 1300, 8192});
  EXPECT_DOUBLE_EQ(whole.at("fp8").at("flops_per_second").get<double>(), 2614.9e12);
}

TEST(GpuSpecs, DatasheetPeaksAreDenseAndNamedBySource) {
  const auto peaks = gpu_peak_flops({"NVIDIA H100 80GB HBM3", "sm_90", 132, 1980, 2619, 5120});
  EXPECT_DOUBLE_EQ(peaks.at("bf16").at("flops_per_second").get<double>(), 989.4e12);
  EXPECT_DOUBLE_EQ(peaks.at("fp8").at("flops_per_second").get<double>(), 1978.9e12);
  EXPECT_DOUBLE_EQ(peaks.at("tf32").at("flops_per_second").get<double>(), 494.7e12);
  EXPECT_DOUBLE_EQ(peaks.at("fp32").at("flops_per_second").get<double>(), 67e12);
  EXPECT_NE(peaks.at("bf16").at("source").get<std::string>().find("H100 datasheet"), std::string::npos);
  const auto mi300 = gpu_peak_flops({"AMD Instinct MI300X", "gfx942", 304, 2100, 0, 0});
  EXPECT_DOUBLE_EQ(mi300.at("fp16").at("flops_per_second").get<double>(), 1307.4e12);
  EXPECT_DOUBLE_EQ(mi300.at("fp8").at("flops_per_second").get<double>(), 2614.9e12);
}

TEST(GpuSpecs, TypesAnArchitectureCannotRunHaveNoPeak) {
  const auto a100 = gpu_peak_flops({"NVIDIA A100-SXM4-80GB", "sm_80", 108, 1410, 1593, 5120});
  EXPECT_TRUE(a100.at("fp8").at("flops_per_second").is_null());
  EXPECT_NE(a100.at("fp8").at("source").get<std::string>().find("no dense fp8"), std::string::npos);
  const auto mi355 = gpu_peak_flops({"AMD Instinct MI355X", "gfx950", 256, 2400, 0, 0});
  EXPECT_TRUE(mi355.at("tf32").at("flops_per_second").is_null());
  EXPECT_DOUBLE_EQ(mi355.at("bf16").at("flops_per_second").get<double>(), 2516.6e12);
}

TEST(GpuSpecs, UnknownModelsGetPeaksComputedFromClocksAndUnits) {
  const auto ada = gpu_peak_flops({"NVIDIA RTX 6000 Ada Generation", "sm_89", 142, 2520, 0, 0});
  EXPECT_DOUBLE_EQ(ada.at("bf16").at("flops_per_second").get<double>(), 142 * 2520e6 * 1024);
  EXPECT_EQ(ada.at("bf16").at("source").get<std::string>(),
            "computed: 142 SMs x 2520 MHz x 1024 FLOP/clock (sm_89 bf16 dense)");
  const auto mi210 = gpu_peak_flops({"AMD Instinct MI210", "gfx90a", 104, 1700, 1600, 4096});
  EXPECT_DOUBLE_EQ(mi210.at("fp16").at("flops_per_second").get<double>(), 104 * 1700e6 * 1024);
  EXPECT_NE(mi210.at("fp16").at("source").get<std::string>().find("CUs"), std::string::npos);
  const auto unknown = gpu_peak_flops({"Mystery GPU", "sm_999", 10, 1000, 0, 0});
  EXPECT_TRUE(unknown.at("bf16").at("flops_per_second").is_null());
  EXPECT_NE(unknown.at("bf16").at("source").get<std::string>().find("unknown"), std::string::npos);
}

TEST(GpuSpecs, BandwidthFromDatasheetElseFromMemoryClockAndBus) {
  EXPECT_DOUBLE_EQ(
      gpu_peak_bandwidth({"NVIDIA H200", "sm_90", 132, 1980, 3201, 6144}).at("bytes_per_second").get<double>(), 4800e9);
  const auto computed = gpu_peak_bandwidth({"NVIDIA RTX 6000 Ada Generation", "sm_89", 142, 2520, 9001, 384});
  EXPECT_DOUBLE_EQ(computed.at("bytes_per_second").get<double>(), 2 * 9001e6 * 384 / 8);
  EXPECT_TRUE(gpu_peak_bandwidth({"Mystery", "sm_999", 1, 1, 0, 0}).at("bytes_per_second").is_null());
}

TEST(GpuSpecs, Gb200AndL40sHaveTheirDatasheets) {
  const auto* gb200 = find_gpu_datasheet("NVIDIA GB200");
  ASSERT_NE(gb200, nullptr);
  EXPECT_EQ(gb200->model, "GB200");  // not B200, whose name part it contains
  EXPECT_DOUBLE_EQ(gb200->tflops("bf16"), 2500);
  EXPECT_EQ(find_gpu_datasheet("NVIDIA B200")->model, "B200");
  const auto* l40s = find_gpu_datasheet("NVIDIA L40S");
  ASSERT_NE(l40s, nullptr);
  EXPECT_DOUBLE_EQ(l40s->tflops("fp8"), 733);
  EXPECT_DOUBLE_EQ(l40s->memory_gb_per_s, 864);
}

TEST(GpuSpecs, ArchitectureRates) {
  EXPECT_EQ(flops_per_clock_per_unit("sm_90", "bf16"), 4096);
  EXPECT_EQ(flops_per_clock_per_unit("sm_90", "fp8"), 8192);
  EXPECT_EQ(flops_per_clock_per_unit("gfx942", "fp8"), 4096);
  EXPECT_EQ(flops_per_clock_per_unit("sm_80", "fp8"), 0);
  EXPECT_FALSE(flops_per_clock_per_unit("sm_999", "bf16").has_value());
  // Every datasheet entry agrees with its architecture's rate to within the clock's range.
  EXPECT_NEAR(989.4e12 / (132 * 4096.0), 1830e6, 1e6);
}

}  // namespace
}  // namespace ironbench::device

#include "device/gpu/gpu_summary.hpp"

namespace ironbench::device {
namespace {

TEST(GpuSummary, DescribesUnitsClocksBusPeaksAndTelemetry) {
  core::device_info d;
  d.id = "cuda:0";
  d.kind = core::device_kind::cuda;
  d.memory_bytes = std::uint64_t{80} << 30;
  gpu_peak_inputs in{"NVIDIA H100 80GB HBM3", "sm_90", 132, 1980, 2619, 5120};
  d.properties = {{"arch", "sm_90"},
                  {"multiprocessors", 132},
                  {"sm_clock_max_mhz", 1980.0},
                  {"memory_clock_max_mhz", 2619.0},
                  {"memory_bus_width_bits", 5120},
                  {"l2_cache_bytes", 52428800},
                  {"pci_bus_id", "0000:1B:00.0"},
                  {"driver_api_version", "13.0"},
                  {"runtime_version", "13.0"},
                  {"peers", json::array({"cuda:1"})},
                  {"peak_flops", gpu_peak_flops(in)},
                  {"peak_bandwidth", gpu_peak_bandwidth(in)},
                  {"telemetry", {{"available", false}, {"reason", "telemetry unavailable: no libnvidia-ml"}}}};
  std::string all;
  for (const auto& [label, text] : gpu_summary_lines(d)) all += label + ": " + text + "\n";
  EXPECT_NE(all.find("sm_90, 132 SMs, 1980 MHz max, L2 50 MiB"), std::string::npos) << all;
  EXPECT_NE(all.find("0000:1B:00.0, driver API 13.0"), std::string::npos) << all;
  EXPECT_NE(all.find("bf16 989.4"), std::string::npos) << all;
  EXPECT_NE(all.find("3.35 TB/s"), std::string::npos) << all;
  EXPECT_NE(all.find("peers: cuda:1"), std::string::npos) << all;
  EXPECT_NE(all.find("telemetry unavailable: no libnvidia-ml"), std::string::npos) << all;
}

}  // namespace
}  // namespace ironbench::device
