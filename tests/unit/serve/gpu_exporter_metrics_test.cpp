// The DCGM exporter's and AMD device metrics exporter's /metrics (fixtures from their
// documentation, tests/data/*/SOURCES.md) read into one schema per GPU, and the remote
// telemetry summary of a point with its energy verdict.
#include "serve/metrics/gpu_exporter_metrics.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "serve/metrics/remote_gpu_telemetry.hpp"

namespace ironbench::serve {
namespace {

std::string fixture(const std::string& path) {
  std::ifstream in(std::string(IRONBENCH_TEST_DATA) + "/" + path);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << path;
  return text.str();
}

TEST(GpuExporter, DcgmDocumentationSampleIsOneGpuWithoutItsMigInstance) {
  const auto r = parse_gpu_exporter(fixture("dcgm-exporter/mig_a100.txt"));
  EXPECT_EQ(r.rejected_lines, 0U) << r.first_problem;
  ASSERT_EQ(r.gpus.size(), 1U) << "the MIG instance's lines (GPU_I_ID) are not a GPU of their own";
  const auto& g = r.gpus.front();
  EXPECT_EQ(g.exporter, "dcgm");
  EXPECT_EQ(g.key, "ub20-a100-k8s/0");
  EXPECT_EQ(g.uuid, "GPU-34319582-d595-d1c7-d1d2-179bcfa61660");
  EXPECT_DOUBLE_EQ(*g.power_w, 409.692);
  EXPECT_DOUBLE_EQ(*g.energy_j, 319159391 * 1e-3);  // mJ since boot
  EXPECT_DOUBLE_EQ(*g.memory_used_bytes, 4845 * 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(*g.memory_free_bytes, 35690 * 1024.0 * 1024);
  EXPECT_DOUBLE_EQ(*g.sm_clock_mhz, 1215);
  EXPECT_DOUBLE_EQ(*g.memory_clock_mhz, 1215);
  EXPECT_FALSE(g.utilization_percent) << "the sample has no DCGM_FI_DEV_GPU_UTIL";
}

TEST(GpuExporter, DcgmQuickstartWithItsEllipsesStillReadsTheClocks) {
  const auto r = parse_gpu_exporter(fixture("dcgm-exporter/quickstart.txt"));
  EXPECT_EQ(r.rejected_lines, 2U) << "the two '...' lines";
  ASSERT_EQ(r.gpus.size(), 1U);
  EXPECT_EQ(r.gpus[0].key, "0");
  EXPECT_DOUBLE_EQ(*r.gpus[0].sm_clock_mhz, 139);
  EXPECT_DOUBLE_EQ(*r.gpus[0].memory_clock_mhz, 405);
  EXPECT_FALSE(r.gpus[0].power_w);
}

TEST(GpuExporter, AmdDocumentationClocksAreSystemAndMemoryPerGpu) {
  const auto r = parse_gpu_exporter(fixture("amd-device-metrics-exporter/gpu_clock.txt"));
  EXPECT_EQ(r.rejected_lines, 0U);
  ASSERT_EQ(r.gpus.size(), 1U) << "only GPU 0 has a system or memory clock";
  EXPECT_EQ(r.gpus[0].exporter, "amd");
  EXPECT_EQ(r.gpus[0].key, "xxxx/0");
  EXPECT_DOUBLE_EQ(*r.gpus[0].sm_clock_mhz, 132);
  EXPECT_DOUBLE_EQ(*r.gpus[0].memory_clock_mhz, 900);
  const auto k = parse_gpu_exporter(fixture("amd-device-metrics-exporter/mi300x_gfx_activity.txt"));
  ASSERT_EQ(k.gpus.size(), 1U);
  EXPECT_EQ(k.gpus[0].key, "tw038/2");
  EXPECT_EQ(k.gpus[0].uuid, "ccff74a1-0000-1000-80e0-c6d49f5b0d86");
  EXPECT_EQ(k.gpus[0].model, "AMD Instinct MI300X OAM");
  EXPECT_DOUBLE_EQ(*k.gpus[0].utilization_percent, 0);
}

TEST(GpuExporter, BothExportersLandInOneSchema) {
  // The documented names and units (metricslist.md; default-counters.csv) of one GPU each.
  const auto amd = parse_gpu_exporter(
      "gpu_package_power{gpu_id=\"1\",hostname=\"mi\"} 700\n"
      "gpu_power_usage{gpu_id=\"1\",hostname=\"mi\"} 650\n"
      "gpu_energy_consumed{gpu_id=\"1\",hostname=\"mi\"} 2.5e9\n"
      "gpu_gfx_activity{gpu_id=\"1\",hostname=\"mi\"} 93\n"
      "gpu_used_vram{gpu_id=\"1\",hostname=\"mi\"} 1024\n"
      "gpu_clock{gpu_id=\"1\",hostname=\"mi\",clock_type=\"GPU_CLOCK_TYPE_SYSTEM\",clock_index=\"0\"} 2000\n"
      "gpu_clock{gpu_id=\"1\",hostname=\"mi\",clock_type=\"GPU_CLOCK_TYPE_SYSTEM\",clock_index=\"1\"} 2100\n");
  const auto dcgm = parse_gpu_exporter(
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",Hostname=\"h\"} 650\n"
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"1\",Hostname=\"h\"} 2.5e6\n"
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",Hostname=\"h\"} 93\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"1\",Hostname=\"h\"} 1024\n");
  ASSERT_EQ(amd.gpus.size(), 1U);
  ASSERT_EQ(dcgm.gpus.size(), 1U);
  const auto &a = amd.gpus[0], &d = dcgm.gpus[0];
  EXPECT_DOUBLE_EQ(*a.power_w, 650) << "gpu_power_usage is preferred over the package power";
  EXPECT_DOUBLE_EQ(*a.power_w, *d.power_w);
  EXPECT_DOUBLE_EQ(*a.energy_j, 2500);
  EXPECT_DOUBLE_EQ(*a.energy_j, *d.energy_j);
  EXPECT_DOUBLE_EQ(*a.utilization_percent, *d.utilization_percent);
  EXPECT_DOUBLE_EQ(*a.memory_used_bytes, *d.memory_used_bytes);
  EXPECT_DOUBLE_EQ(*a.sm_clock_mhz, 2050) << "the mean of the engines' system clocks";
  EXPECT_TRUE(parse_gpu_exporter("vllm:num_requests_running 3\n").gpus.empty());
  EXPECT_FALSE(gpu_exporter_series_names().empty());
}

// Rounds of a one-GPU DCGM exporter at constant power, scraped every `interval` s from t = -0.1.
std::vector<scrape_round> constant_power_rounds(double watts, double interval, int count, int fail_from = 1 << 30) {
  std::vector<scrape_round> rounds;
  for (int i = 0; i < count; ++i) {
    const double t = -0.1 + interval * i;
    scrape_round r;
    r.monotonic_ns = static_cast<std::int64_t>(1e9 + t * 1e9);
    endpoint_scrape e;
    e.ok = i < fail_from;
    if (e.ok) {
      e.samples = parse_prometheus_text("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"} " + std::to_string(watts) +
                                        "\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",Hostname=\"h\"} " +
                                        std::to_string(1e6 + watts * (t + 100) * 1e3) + "\n")
                      .samples;
    } else {
      e.error = "HTTP 503";
    }
    r.endpoints.push_back(std::move(e));
    rounds.push_back(std::move(r));
  }
  return rounds;
}

TEST(RemoteGpuTelemetry, ConstantPowerGivesItsEnergyPerTokenAndAGapMakesItInvalid) {
  // 400 W over a 2 s point, scraped every 0.25 s: 800 J, 1000 tokens.
  const auto ok = summarize_remote_gpus(constant_power_rounds(400, 0.25, 10), {"http://h:9400/metrics"},
                                        static_cast<std::int64_t>(1e9), 2.0, 0.25, 1000);
  const auto& s = ok.summary;
  EXPECT_TRUE(s.at("energy_valid").get<bool>());
  EXPECT_EQ(s.at("energy_source"), "energy counter");
  EXPECT_NEAR(s.at("energy_j").get<double>(), 800, 1e-3);
  EXPECT_NEAR(s.at("joules_per_output_token").get<double>(), 0.8, 1e-6);
  EXPECT_DOUBLE_EQ(s.at("energy_coverage").get<double>(), 1);
  EXPECT_NEAR(s.at("energy_largest_gap_s").get<double>(), 0.25, 1e-9);
  EXPECT_EQ(s.at("gpus").at("h/0").at("exporter"), "dcgm");
  // One GPU is "1 GPU"; two are "2 GPUs".
  EXPECT_NE(remote_gpu_text(s).find(" GPU exporter (1 GPU) "), std::string::npos) << remote_gpu_text(s);
  auto two = s;
  two["gpus"]["h/1"] = s.at("gpus").at("h/0");
  EXPECT_NE(remote_gpu_text(two).find(" GPU exporter (2 GPUs) "), std::string::npos) << remote_gpu_text(two);
  // The exporter stops answering after 0.65 s of the point: a third covered, invalid.
  const auto cut = summarize_remote_gpus(constant_power_rounds(400, 0.25, 10, 4), {"http://h:9400/metrics"},
                                         static_cast<std::int64_t>(1e9), 2.0, 0.25, 1000);
  EXPECT_FALSE(cut.summary.at("energy_valid").get<bool>());
  EXPECT_NEAR(cut.summary.at("energy_coverage").get<double>(), 0.65 / 2, 1e-9);
  EXPECT_NEAR(cut.summary.at("energy_largest_gap_s").get<double>(), 2 - 0.65, 1e-9);
  EXPECT_NE(cut.summary.at("energy_invalid_reason").get<std::string>().find("samples cover "), std::string::npos);
  EXPECT_FALSE(cut.summary.contains("joules_per_output_token"));
  for (const auto& m : cut.metrics) EXPECT_NE(m.name, "joules_per_output_token");
  EXPECT_NE(remote_gpu_text(cut.summary).find("INVALID"), std::string::npos);
}

}  // namespace
}  // namespace ironbench::serve
