// The stand-in GPUs: their spec (IRONBENCH_STAND_IN_GPUS) and how they are described.
#include "device/stand_in_gpus.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::device {
namespace {

TEST(StandInGpus, ACountAndEachOnesBehaviour) {
  const auto spec = parse_stand_in_spec("4,cuda:1=hang, cuda:3=slow", "0.05");
  EXPECT_EQ(spec.count, 4);
  EXPECT_DOUBLE_EQ(spec.time_scale, 0.05);
  EXPECT_EQ(spec.behaviour_of("cuda:1"), stand_in_behaviour::hang);
  EXPECT_EQ(spec.behaviour_of("cuda:3"), stand_in_behaviour::slow);
  EXPECT_EQ(spec.behaviour_of("cuda:0"), stand_in_behaviour::normal);
  EXPECT_DOUBLE_EQ(parse_stand_in_spec("2", "").time_scale, 0.01);
  for (const char* bad : {"0", "65", "x", "2,cuda:2=hang", "2,cuda:1=explode", "2,cuda:1"}) {
    EXPECT_THROW((void)parse_stand_in_spec(bad, ""), usage_error) << bad;
  }
  EXPECT_THROW((void)parse_stand_in_spec("2", "0"), usage_error);
  EXPECT_THROW((void)parse_stand_in_spec("2", "2"), usage_error);
}

TEST(StandInGpus, DescribedAsH200sThatArePeersOfEachOther) {
  const auto gpus = stand_in_gpus(parse_stand_in_spec("3,cuda:2=wrong", ""));
  ASSERT_EQ(gpus.size(), 3u);
  const auto& d = gpus[2];
  EXPECT_EQ(d.id, "cuda:2");
  EXPECT_EQ(d.kind, core::device_kind::cuda);
  EXPECT_TRUE(core::is_gpu(d));
  EXPECT_TRUE(is_stand_in(d));
  EXPECT_EQ(d.properties.at("stand_in").at("behaviour"), "wrong");
  EXPECT_EQ(d.properties.at("peers"), json::array({"cuda:0", "cuda:1"}));
  EXPECT_EQ(d.properties.at("gpu_count"), 3);
  EXPECT_DOUBLE_EQ(d.properties.at("peak_flops").at("bf16").at("flops_per_second").get<double>(), 989.4e12);
  EXPECT_DOUBLE_EQ(d.properties.at("peak_bandwidth").at("bytes_per_second").get<double>(), 4.8e12);
}

}  // namespace
}  // namespace ironbench::device
