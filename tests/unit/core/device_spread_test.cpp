// Devices slower than their peers, named with validate's WARN and FAIL ratios.
#include "core/device_spread.hpp"

#include <gtest/gtest.h>

namespace ironbench::core {
namespace {

case_result measured(const std::string& device, std::int64_t size, double value) {
  case_result c;
  c.benchmark = "stream";
  c.device = device;
  c.params.set("size", size);
  c.metrics.push_back({"bandwidth", value, "GB/s", ""});
  return c;
}

run_result eight_gpus(double slow_share) {
  run_result run;
  for (int i = 0; i < 8; ++i) {
    const auto id = "cuda:" + std::to_string(i);
    run.devices.push_back({id, device_kind::cuda, i, "H200", 0, json::object()});
    for (std::int64_t size : {1, 2}) run.cases.push_back(measured(id, size, (i == 3 ? slow_share : 1.0) * 4000));
  }
  run.devices.push_back({"cpu", device_kind::cpu, 0, "Xeon", 0, json::object()});
  run.cases.push_back(measured("cpu", 1, 100));  // another model: not a peer
  return run;
}

TEST(DeviceSpread, ASlowGpuAmongEightIsNamedWithItsVerdict) {
  const auto fail = slow_devices(eight_gpus(0.7));
  ASSERT_EQ(fail.size(), 1u);
  EXPECT_EQ(fail[0].device, "cuda:3");
  EXPECT_EQ(fail[0].verdict, "FAIL");
  EXPECT_NEAR(fail[0].ratio, 0.7, 1e-12);
  EXPECT_EQ(fail[0].peers, 7u);
  EXPECT_EQ(fail[0].slow_cases, 2u);
  EXPECT_EQ(fail[0].compared_cases, 2u);
  EXPECT_EQ(describe(fail[0]),
            "cuda:3 FAIL: stream size=1 at 0.70 of the other 7 devices' median (2800 vs 4000 GB/s), 2 of 2 compared "
            "cases below 0.9");
  EXPECT_EQ(to_json(fail[0]).at("verdict"), "FAIL");

  const auto warn = slow_devices(eight_gpus(0.85));
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_EQ(warn[0].verdict, "WARN");
  EXPECT_TRUE(slow_devices(eight_gpus(0.95)).empty());
}

TEST(DeviceSpread, InvalidCasesAndLoneDevicesAreNotCompared) {
  auto run = eight_gpus(0.5);
  for (auto& c : run.cases) {
    if (c.device == "cuda:3") c.status = case_status::invalid;
  }
  EXPECT_TRUE(slow_devices(run).empty());
  run_result one;
  one.cases.push_back(measured("cuda:0", 1, 10));
  EXPECT_TRUE(slow_devices(one).empty());
  // Two devices: each against the other; only the slower is named.
  one.cases.push_back(measured("cuda:1", 1, 5));
  const auto two = slow_devices(one);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].device, "cuda:1");
}

}  // namespace
}  // namespace ironbench::core
