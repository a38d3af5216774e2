#include "device/device_enumeration.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::device {
namespace {

device_enumeration two_gpus() {
  device_enumeration found;
  found.devices.push_back({"cpu", core::device_kind::cpu, 0, "CPU", 0, json::object()});
  found.devices.push_back({"cuda:0", core::device_kind::cuda, 0, "GPU0", 0, json::object()});
  found.devices.push_back({"cuda:1", core::device_kind::cuda, 1, "GPU1", 0, json::object()});
  return found;
}

std::vector<std::string> ids(const std::vector<core::device_info>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.id);
  return out;
}

TEST(SelectDevices, ByNameKindAndAll) {
  const auto found = two_gpus();
  EXPECT_EQ(ids(select_devices(found, "all")), (std::vector<std::string>{"cpu", "cuda:0", "cuda:1"}));
  EXPECT_EQ(ids(select_devices(found, "cuda")), (std::vector<std::string>{"cuda:0", "cuda:1"}));
  EXPECT_EQ(ids(select_devices(found, "cuda:1,cpu")), (std::vector<std::string>{"cuda:1", "cpu"}));
  EXPECT_EQ(ids(select_devices(found, "cpu,cpu")), (std::vector<std::string>{"cpu"}));
}

TEST(SelectDevices, UnknownDeviceSaysWhatExistsAndWhy) {
  device_enumeration found;
  found.devices.push_back({"cpu", core::device_kind::cpu, 0, "CPU", 0, json::object()});
  found.notes.push_back("cuda: no GPU (cudaErrorInsufficientDriver)");
  try {
    (void)select_devices(found, "cuda:0");
    FAIL() << "no exception";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no device 'cuda:0'"), std::string::npos);
    EXPECT_NE(message.find("found: cpu"), std::string::npos);
    EXPECT_NE(message.find("InsufficientDriver"), std::string::npos);
  }
  EXPECT_THROW((void)select_devices(found, ""), usage_error);
  EXPECT_THROW((void)select_devices(found, "cpu,"), usage_error);
}

}  // namespace
}  // namespace ironbench::device
