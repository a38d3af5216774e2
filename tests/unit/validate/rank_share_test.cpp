// What one rank validates when ranks of a job share a host: the CPU with its share of memory
// and threads, each GPU once on the host.
#include "validate/rank_share.hpp"

#include <gtest/gtest.h>

namespace ironbench::validate {
namespace {

core::device_info cpu_of(std::uint64_t memory, int threads) {
  core::device_info d;
  d.id = "cpu";
  d.kind = core::device_kind::cpu;
  d.memory_bytes = memory;
  d.properties = {{"threads", threads}, {"available_memory_bytes", static_cast<std::int64_t>(memory)}};
  return d;
}

core::device_info gpu_of(int index) {
  core::device_info d;
  d.id = "cuda:" + std::to_string(index);
  d.kind = core::device_kind::cuda;
  d.index = index;
  return d;
}

std::vector<core::device_info> node(int gpus) {
  std::vector<core::device_info> out{cpu_of(24ull << 30, 16)};
  for (int i = 0; i < gpus; ++i) out.push_back(gpu_of(i));
  return out;
}

std::vector<std::string> ids(const std::vector<core::device_info>& devices) {
  std::vector<std::string> out;
  for (const auto& d : devices) out.push_back(d.id);
  return out;
}

TEST(RankShare, AloneARankValidatesEverything) {
  std::vector<std::string> notes;
  const auto devices = share_devices(node(8), {0, 1}, true, notes);
  EXPECT_EQ(devices.size(), 9u);
  EXPECT_EQ(devices.front().memory_bytes, 24ull << 30);
  EXPECT_TRUE(notes.empty());
}

// The fault: 4 ranks on a 24 GB host each sized STREAM for the whole host; one was OOM-killed.
TEST(RankShare, FourRanksOnAHostEachTakeAQuarterOfItsMemoryAndThreads) {
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<std::string> notes;
    const auto devices = share_devices(node(0), {rank, 4}, true, notes);
    ASSERT_EQ(devices.size(), 1u);
    const auto& cpu = devices.front();
    EXPECT_EQ(cpu.memory_bytes, 6ull << 30);
    EXPECT_EQ(cpu.properties.at("available_memory_bytes").get<std::int64_t>(), std::int64_t{6} << 30);
    EXPECT_EQ(cpu.properties.at("threads").get<int>(), 4);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("4 ranks share this host: local rank " + std::to_string(rank)), std::string::npos)
        << notes[0];
  }
}

TEST(RankShare, EachGpuIsValidatedOnceOnTheHost) {
  std::vector<std::string> all;
  for (int rank = 0; rank < 8; ++rank) {
    std::vector<std::string> notes;
    const auto devices = share_devices(node(8), {rank, 8}, true, notes);
    ASSERT_EQ(devices.size(), 2u);  // the CPU share and one GPU
    EXPECT_EQ(devices[1].id, "cuda:" + std::to_string(rank));
    EXPECT_EQ(devices[0].properties.at("threads").get<int>(), 2);
    all.push_back(devices[1].id);
  }
  EXPECT_EQ(all.size(), 8u);
  // Two ranks, eight GPUs: four each, none twice.
  std::vector<std::string> notes;
  EXPECT_EQ(ids(share_devices(node(8), {0, 2}, true, notes)),
            (std::vector<std::string>{"cpu", "cuda:0", "cuda:2", "cuda:4", "cuda:6"}));
  EXPECT_EQ(ids(share_devices(node(8), {1, 2}, true, notes)),
            (std::vector<std::string>{"cpu", "cuda:1", "cuda:3", "cuda:5", "cuda:7"}));
}

TEST(RankShare, NamedGpusAreValidatedAsNamedAndThreadsNeverReachZero) {
  std::vector<std::string> notes;
  auto named = node(2);
  const auto devices = share_devices(named, {1, 4}, false, notes);
  EXPECT_EQ(ids(devices), (std::vector<std::string>{"cpu", "cuda:0", "cuda:1"}));
  std::vector<core::device_info> small{cpu_of(1ull << 30, 2)};
  EXPECT_EQ(share_devices(small, {3, 8}, true, notes).front().properties.at("threads").get<int>(), 1);
}

}  // namespace
}  // namespace ironbench::validate
