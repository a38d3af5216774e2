// GPU benchmarks run for real through the binary: every case must be valid (measured and
// verified) or skipped with a reason the device explains. Without a GPU they skip, saying why.
#include <gtest/gtest.h>

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

#define REQUIRE_GPU(id)                  \
  std::string why;                       \
  const auto id = first_gpu(why);        \
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
  const auto doc = run_on_gpu(gpu, {"gemm", "--axis", "dtype=fp32,tf32,fp16,bf16,fp8", "--axis", "M=256,1024",
                                    "--axis", "N=512,1024", "--axis", "K=384,2048", "--max-time", "0.2s"});
  EXPECT_GE(valid_cases(doc), 2u * 2 * 4);  // fp32, tf32, fp16, bf16 on both providers, two shapes
  for (const auto& c : doc.at("cases")) {
    if (c.at("status") != "valid") continue;
    EXPECT_GE(c.at("time").at("samples_s").size(), 200u);
    EXPECT_TRUE(c.at("notes").contains("provider"));
  }
}

TEST(GpuStream, EveryKernelVerifiesAtTwoSizes) {
  REQUIRE_GPU(gpu);
  const auto doc = run_on_gpu(gpu, {"stream", "--axis", "size=1M,64M", "--axis", "dtype=fp32,fp64", "--max-time", "0.2s"});
  EXPECT_EQ(valid_cases(doc), 2u * 2 * 6);
}

TEST(GpuCopy, EveryPathAndEngineVerifies) {
  REQUIRE_GPU(gpu);
  const auto doc = run_on_gpu(gpu, {"copy", "--axis", "size=8M", "--max-time", "0.2s"});
  EXPECT_EQ(valid_cases(doc), 7u * 2 - 3);  // kernels cannot copy from pageable memory
}

TEST(GpuCollectives, OneRankNcclRunVerifiesEveryCollectiveTypeAndOp) {
  REQUIRE_GPU(gpu);
  const auto r = run_ironbench({"collectives", "all", "-d", "all", "-o", "all", "--backend", "nccl", "-b", "8", "-e",
                                "1M", "-f", "16", "-n", "5", "-w", "1", "--no-save", "-q", "--json", "-"});
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

}  // namespace
}  // namespace ironbench::testing
