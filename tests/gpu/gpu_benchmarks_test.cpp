// GPU benchmarks run for real through the binary: every case must be valid (measured and
// verified) or skipped with a reason the device explains. Without a GPU they skip, saying why.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/json.hpp"
#include "process.hpp"

namespace ironbench::testing {
namespace {

// The first GPU's id, or empty with `why` set.
std::string first_gpu(std::string& why) {
  const auto r = run_ironbench({"sysinfo", "--json"});
  if (r.exit_code != 0) {
    why = "ironbench sysinfo failed: " + r.err;
    return {};
  }
  const auto doc = json::parse(r.out);
  for (const auto& d : doc.at("devices")) {
    if (d.at("kind") != "cpu") return d.at("id").get<std::string>();
  }
  why = "no GPU";
  for (const auto& note : doc.at("device_notes")) why += "; " + note.get<std::string>();
  return {};
}

#define REQUIRE_GPU(id)           \
  std::string why;                \
  const auto id = first_gpu(why); \
  if (id.empty()) GTEST_SKIP() << why;

// Runs `args` on `gpu` and checks every case; returns the run.
json run_on_gpu(const std::string& gpu, std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  for (auto extra : {"--device", gpu.c_str(), "--json", "-", "--no-save", "-q"}) args.emplace_back(extra);
  const auto r = run_ironbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  for (const auto& c : doc.at("cases")) {
    const auto status = c.at("status").get<std::string>();
    EXPECT_TRUE(status == "valid" || status == "skipped") << c.dump();
    if (status == "valid") {
      EXPECT_TRUE(c.at("notes").contains("verification")) << c.dump();
      EXPECT_TRUE(c.contains("telemetry")) << c.dump();
    }
    if (status == "skipped") {
      EXPECT_FALSE(c.value("reason", std::string()).empty());
    }
  }
  return doc;
}

std::size_t valid_cases(const json& doc) {
  std::size_t n = 0;
  for (const auto& c : doc.at("cases")) n += c.at("status") == "valid" ? 1 : 0;
  return n;
}

TEST(GpuGemm, EveryDtypeAndProviderVerifiesOnSmallShapes) {
  REQUIRE_GPU(gpu);
  const auto doc = run_on_gpu(gpu, {"gemm", "--axis", "dtype=fp32,tf32,fp16,bf16,fp8", "--axis", "M=256,1024", "--axis",
                                    "N=512,1024", "--axis", "K=384,2048", "--max-time", "0.2s"});
  EXPECT_GE(valid_cases(doc), 2u * 2 * 4);  // fp32, tf32, fp16, bf16 on both providers, two shapes
  for (const auto& c : doc.at("cases")) {
    if (c.at("status") != "valid") continue;
    EXPECT_GE(c.at("time").at("samples").size(), 200u) << c.dump();
    EXPECT_TRUE(c.at("notes").contains("provider"));
  }
}

// fp8 through the Lt library must run wherever the architecture has fp8 matrix units: an H200
// once declined every fp8 matmul for a scale pointer 4 bytes into its allocation, and the
// cases failed where a skip would have hidden it.
TEST(GpuGemm, Fp8ThroughTheLtLibraryVerifiesWhereTheArchitectureHasFp8Units) {
  REQUIRE_GPU(gpu);
  const auto doc = run_on_gpu(gpu, {"gemm", "--axis", "dtype=fp8", "--axis", "M=1024,8192", "--axis", "N=1024,8192",
                                    "--axis", "K=1024,8192", "--max-time", "0.2s"});
  std::size_t lt = 0, valid = 0;
  for (const auto& c : doc.at("cases")) {
    const auto provider = c.at("params").at("provider").get<std::string>();
    const auto reason = c.value("reason", std::string());
    if (provider == "cublas" || provider == "rocblas") {  // GemmEx takes no scaled fp8
      EXPECT_EQ(c.at("status"), "skipped") << c.dump();
      continue;
    }
    ++lt;
    if (c.at("status") == "valid") {
      ++valid;
      EXPECT_TRUE(c.at("notes").contains("fp8_scales")) << c.dump();
      continue;
    }
    // The only acceptable reason: the architecture has no fp8 matrix units, or is not known.
    EXPECT_TRUE(reason.find("has no fp8 matrix units") != std::string::npos ||
                reason.find("unknown architecture") != std::string::npos)
        << c.dump();
  }
  EXPECT_EQ(lt, 2u) << doc.dump();  // the two shapes (M, N and K are zipped)
  if (valid == 0) GTEST_SKIP() << "this GPU has no fp8 matrix units";
  EXPECT_EQ(valid, 2u);
}

TEST(GpuStream, EveryKernelVerifiesAtTwoSizes) {
  REQUIRE_GPU(gpu);
  const auto doc =
      run_on_gpu(gpu, {"stream", "--axis", "size=1M,64M", "--axis", "dtype=fp32,fp64", "--max-time", "0.2s"});
  EXPECT_EQ(valid_cases(doc), 2u * 2 * 6);
}

TEST(GpuCopy, EveryPathAndEngineVerifies) {
  REQUIRE_GPU(gpu);
  const auto doc = run_on_gpu(gpu, {"copy", "--axis", "size=8M", "--max-time", "0.2s"});
  EXPECT_EQ(valid_cases(doc), 7u * 2 - 3);  // kernels cannot copy from pageable memory
}

TEST(GpuCollectives, OneRankNcclRunVerifiesEveryCollectiveTypeAndOp) {
  REQUIRE_GPU(gpu);
  const auto r =
      run_ironbench({"collectives", "all", "-d", "all", "-o", "all", "--backend", "nccl",      "-b", "8",      "-e",
                     "1M",          "-f",  "16", "-n",  "5",  "-w",  "1",         "--no-save", "-q", "--json", "-"});
  if (r.exit_code == 2 && r.err.find("no GPU collectives") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  std::size_t valid = 0;
  for (const auto& c : doc.at("cases")) {
    const auto status = c.at("status").get<std::string>();
    EXPECT_TRUE(status == "valid" || status == "skipped") << c.dump();
    valid += status == "valid" ? 1 : 0;
  }
  EXPECT_GT(valid, 100u);
  EXPECT_NE(doc.at("settings").at("backend").get<std::string>().find("device buffers"), std::string::npos);
}

TEST(GpuTpInfer, OneRankOnTheGpuVerifiesAgainstTheReferenceAndTheSingleDeviceRun) {
  REQUIRE_GPU(gpu);
  const auto r = run_ironbench({"tp_infer", "--backend", "nccl", "--batch", "256,1024", "--hidden", "512", "-n", "3",
                                "--no-save", "-q", "--json", "-"});
  if (r.exit_code == 2 && r.err.find("no GPU collectives") != std::string::npos) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = json::parse(r.out);
  ASSERT_EQ(doc.at("cases").size(), 4u);
  for (const auto& c : doc.at("cases")) EXPECT_EQ(c.at("status"), "valid") << c.dump();
  EXPECT_NE(doc.at("settings").at("backend").get<std::string>().find("device buffers"), std::string::npos);
  EXPECT_NE(doc.at("settings").at("compute").get<std::string>().find("FP32 compute"), std::string::npos);
}

// nvidia-smi's CSV answer for `fields` on the GPU at `bus_id`, split at commas; exit code 127
// when nvidia-smi cannot be started (not installed).
struct smi_answer {
  int exit_code = -1;
  std::string err;
  std::vector<std::string> values;
};
smi_answer nvidia_smi_query(const std::string& bus_id, const std::string& fields) {
  const auto r = wait_for(
      start_program("nvidia-smi", {"--query-gpu=" + fields, "--format=csv,noheader,nounits", "--id=" + bus_id}));
  smi_answer answer{r.exit_code, r.err, {}};
  if (r.exit_code != 0 || r.out.empty()) return answer;
  std::stringstream line(lines_of(r.out).at(0));
  for (std::string v; std::getline(line, v, ',');) answer.values.push_back(v.substr(v.find_first_not_of(' ')));
  return answer;
}

TEST(GpuTelemetry, NvmlReadingsAgreeWithNvidiaSmi) {
  REQUIRE_GPU(gpu);
  const auto info = json::parse(run_ironbench({"sysinfo", "--json"}).out);
  json device;
  for (const auto& d : info.at("devices")) device = d.at("id") == gpu ? d : device;
  const auto& props = device.at("properties");
  if (props.value("vendor", "") != "cuda") GTEST_SKIP() << "not an NVIDIA GPU: nvidia-smi does not describe it";
  const auto answer =
      nvidia_smi_query(props.at("pci_bus_id"), "driver_version,power.limit,clocks.max.sm,memory.total,pci.bus_id");
  if (answer.exit_code == 127) GTEST_SKIP() << "nvidia-smi is not installed: nothing to compare NVML's readings with";
  ASSERT_EQ(answer.exit_code, 0) << "nvidia-smi failed on an NVIDIA GPU: " << answer.err;
  const auto& smi = answer.values;
  ASSERT_EQ(smi.size(), 5u);
  const auto& nvml = props.at("telemetry");
  ASSERT_TRUE(nvml.value("available", false)) << nvml.dump();
  EXPECT_EQ(nvml.at("driver_version"), smi[0]);
  // A field the driver does not expose (often in VMs) reads "[N/A]" and NVML has no value for it.
  const auto reported = [](const std::string& v) { return v.find("N/A") == std::string::npos && !v.empty(); };
  if (reported(smi[1])) {
    EXPECT_NEAR(nvml.at("power_limit_w").get<double>(), std::stod(smi[1]), 1.0);
  }
  if (reported(smi[2])) {
    EXPECT_EQ(nvml.at("sm_clock_max_mhz").get<double>(), std::stod(smi[2]));
  }
  // nvidia-smi's memory.total is in MiB; the runtime's total may leave out a reserved part.
  ASSERT_TRUE(reported(smi[3])) << "nvidia-smi reports no memory.total";
  EXPECT_NEAR(device.at("memory_bytes").get<double>() / 1048576.0, std::stod(smi[3]), 0.02 * std::stod(smi[3]));

  // A case's samples lie within what nvidia-smi reads while it runs (polled every 100 ms
  // beside it: the GPU warms during the case and cools after it, so readings taken only
  // before and after bound neither its mean nor its maximum).
  const auto poll = start_program("nvidia-smi", {"--query-gpu=temperature.gpu", "--format=csv,noheader,nounits",
                                                 "--id=" + props.at("pci_bus_id").get<std::string>(), "-lms", "100"});
  const auto doc = run_on_gpu(gpu, {"gemm", "--axis", "dtype=bf16", "--axis", "M=4096", "--max-time", "1s"});
  ::kill(poll.pid, SIGTERM);
  const auto polled = wait_for(poll);
  std::vector<double> readings;
  const auto lines = lines_of(polled.out);
  for (const auto& line : lines) {
    if (reported(line)) readings.push_back(std::stod(line));
  }
  const auto& telemetry = doc.at("cases").at(0).at("telemetry");
  const bool temperature_not_reported = !lines.empty() && readings.empty();  // "[N/A]" throughout
  if (!temperature_not_reported) {
    ASSERT_GE(readings.size(), 2u) << "nvidia-smi -lms 100 gave: " << polled.out << polled.err;
    ASSERT_TRUE(telemetry.contains("temperature_c")) << telemetry.dump();
    const double low = *std::min_element(readings.begin(), readings.end()) - 3;
    const double high = *std::max_element(readings.begin(), readings.end()) + 3;
    EXPECT_GE(telemetry.at("temperature_c").at("mean").get<double>(), low) << telemetry.dump() << polled.out;
    EXPECT_LE(telemetry.at("temperature_c").at("max").get<double>(), high) << telemetry.dump() << polled.out;
  }
  if (reported(smi[2])) {
    EXPECT_LE(telemetry.at("sm_clock_mhz").at("max").get<double>(), std::stod(smi[2])) << telemetry.dump();
  }
  EXPECT_GT(telemetry.at("power_w").at("max").get<double>(), 0.0) << telemetry.dump();
}

}  // namespace
}  // namespace ironbench::testing
