#include "core/device_kinds.hpp"

#include <gtest/gtest.h>

#include "core/device_info.hpp"
#include "core/error.hpp"
#include "core/result_json.hpp"

namespace ironbench::core {
namespace {

TEST(DeviceKinds, NamesRoundTrip) {
  for (const auto& row : device_kinds) {
    EXPECT_EQ(parse_device_kind(to_string(row.kind)), row.kind) << row.name;
    EXPECT_EQ(&facts_of(row.kind), &row);
  }
  EXPECT_STREQ(to_string(device_kind::cpu), "cpu");
  EXPECT_STREQ(to_string(device_kind::cuda), "cuda");
  EXPECT_STREQ(to_string(device_kind::hip), "hip");
  EXPECT_FALSE(parse_device_kind("rocm").has_value());
  EXPECT_FALSE(parse_device_kind("").has_value());
  EXPECT_EQ(device_kind_names(), "cpu, cuda, hip");
}

TEST(DeviceKinds, VendorFacts) {
  EXPECT_FALSE(facts_of(device_kind::cpu).gpu);
  EXPECT_TRUE(facts_of(device_kind::cuda).gpu);
  EXPECT_TRUE(facts_of(device_kind::hip).gpu);
  EXPECT_EQ(facts_of(device_kind::cuda).compute_units, "SMs");
  EXPECT_EQ(facts_of(device_kind::hip).compute_units, "CUs");
  device_info d;
  d.kind = device_kind::hip;
  EXPECT_TRUE(is_gpu(d));
  d.kind = device_kind::cpu;
  EXPECT_FALSE(is_gpu(d));
}

// A result document with one device whose "kind" is `kind` (absent when null).
json run_with_device_kind(const json& kind) {
  run_result run;
  run.tool = json{{"name", "ironbench"}};
  run.start_time = "2026-01-01T00:00:00Z";
  run.devices.push_back({"gpu:0", device_kind::cuda, 0, "X", 1, json::object()});
  auto document = to_json(run);
  auto& device = document.at("devices").at(0);
  device.erase("kind");
  if (!kind.is_null()) device["kind"] = kind;
  return document;
}

TEST(DeviceKinds, ResultFilesWithAnUnknownKindAreRejected) {
  EXPECT_EQ(run_from_json(run_with_device_kind("hip")).devices.at(0).kind, device_kind::hip);
  EXPECT_EQ(run_from_json(run_with_device_kind(nullptr)).devices.at(0).kind, device_kind::cpu);
  try {
    (void)run_from_json(run_with_device_kind("xpu"), "run.json");
    FAIL() << "an unknown device kind was read";
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown device kind 'xpu' (known: cpu, cuda, hip)"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ironbench::core
