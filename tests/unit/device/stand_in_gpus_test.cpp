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

TEST(StandInGpus, ASlowOnesShareOfTheRates) {
  const auto spec = parse_stand_in_spec("3,cuda:1=slow:0.5,cuda:2=slow", "");
  EXPECT_EQ(spec.behaviour_of("cuda:1"), stand_in_behaviour::slow);
  EXPECT_DOUBLE_EQ(spec.rate_share_of("cuda:1"), 0.5);
  EXPECT_DOUBLE_EQ(spec.rate_share_of("cuda:2"), stand_in_slow_share);
  EXPECT_DOUBLE_EQ(spec.rate_share_of("cuda:0"), 1);
  EXPECT_DOUBLE_EQ(stand_in_gpus(spec).at(1).properties.at("stand_in").at("rate_share").get<double>(), 0.5);
  for (const char* bad :
       {"2,cuda:1=slow:0", "2,cuda:1=slow:1", "2,cuda:1=slow:x", "2,cuda:1=slow:", "2,cuda:1=fast:0.5"}) {
    EXPECT_THROW((void)parse_stand_in_spec(bad, ""), usage_error) << bad;
  }
}

TEST(StandInGpus, EachAtItsOwnBusIdInADomainNoMachineHas) {
  const auto gpus = stand_in_gpus(parse_stand_in_spec("12", ""));
  EXPECT_EQ(gpus.at(0).properties.at("pci_bus_id"), "00FF:00:00.0");
  EXPECT_EQ(gpus.at(11).properties.at("pci_bus_id"), "00FF:0B:00.0");
  EXPECT_EQ(stand_in_pci_bus_id(63), "00FF:3F:00.0");
  // A healthy one models the H200's measured rates: bf16 GEMM 690 TFLOP/s, STREAM 4354 GB/s.
  const auto& share = gpus.at(0).properties.at("stand_in").at("measured_share");
  EXPECT_NEAR(share.at("gemm").at("bf16").get<double>() * 989.4e12, 690e12, 1e9);
  EXPECT_NEAR(share.at("stream").get<double>() * 4.8e12, 4354e9, 1e6);
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
