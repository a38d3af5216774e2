// The environment facts compare shows above the numbers: only what differs, from each side's
// first run, GPU partition modes and library versions included.
#include "results/environment_difference.hpp"

#include <gtest/gtest.h>

namespace ironbench::results {
namespace {

core::run_result run_on(const std::string& kernel, const std::string& container, const std::string& partition) {
  core::run_result run;
  run.host = {{"os", {{"kernel_release", kernel}, {"pretty_name", "Ubuntu 22.04"}}},
              {"container", {{"engine", container}}},
              {"cgroup", {{"cpu_quota_cores", nullptr}, {"memory_limit_bytes", 240518168576.0}}},
              {"software", {{"libraries", {{"rccl", "2.22.3"}}}}}};
  core::device_info gpu;
  gpu.id = "hip:0";
  gpu.kind = core::device_kind::hip;
  gpu.name = "AMD Instinct MI300X";
  gpu.properties = {{"driver_api_version", "6.4"}, {"telemetry", {{"compute_partition", partition}}}};
  run.devices = {gpu};
  return run;
}

TEST(EnvironmentDifference, OnlyFactsThatDifferWithEverySidesValue) {
  std::vector<comparison_side> sides = {{"baremetal", {run_on("6.8.0", "", "SPX")}},
                                        {"container", {run_on("6.8.0", "docker", "SPX")}},
                                        {"partition", {run_on("6.8.0", "docker", "CPX")}}};
  const auto facts = environment_difference(sides);
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].name, "container");
  EXPECT_EQ(facts[0].values, (std::vector<std::string>{"", "docker", "docker"}));
  EXPECT_EQ(facts[1].name, "gpu compute_partition");
  EXPECT_EQ(facts[1].values, (std::vector<std::string>{"SPX", "SPX", "CPX"}));

  sides[2].runs.front().host["software"]["libraries"]["rccl"] = "2.21.5";
  const auto with_library = environment_difference(sides);
  ASSERT_EQ(with_library.size(), 3u);
  EXPECT_EQ(with_library[2].name, "library rccl");
}

TEST(EnvironmentDifference, TheFactsOfOneRunReadBytesAsGibibytes) {
  const auto facts = environment_facts(run_on("6.8.0", "docker", "SPX"));
  const auto limit =
      std::find_if(facts.begin(), facts.end(), [](const auto& f) { return f.first == "cgroup memory limit"; });
  ASSERT_NE(limit, facts.end());
  EXPECT_EQ(limit->second, "224.0 GiB");
  const auto quota =
      std::find_if(facts.begin(), facts.end(), [](const auto& f) { return f.first == "cgroup cpu quota (cores)"; });
  EXPECT_EQ(quota->second, "") << "null: not stated";
  EXPECT_TRUE(
      environment_difference({{"a", {run_on("6.8.0", "docker", "SPX")}}, {"b", {run_on("6.8.0", "docker", "SPX")}}})
          .empty());
}

}  // namespace
}  // namespace ironbench::results
