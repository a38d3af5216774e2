// The point-to-point collectives (alltoall, sendrecv, ...) over ranks that are threads: each
// rank's backend runs its row's transfers as NCCL's grouped send/receive does, copying from its
// peers' buffers in shared memory, and the sweep checks every received element of every rank.
// A backend that reads from the wrong peer is caught.
#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "comm/collective_sweep.hpp"
#include "comm/host_comm_buffer.hpp"
#include "comm/thread_ranks.hpp"
#include "schema/collective_kinds.hpp"

namespace ironbench::comm {
namespace {

// A job of one process: every exchange is with itself.
class lone_process final : public bootstrap {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string description() const override { return "one process"; }
  void barrier() override {}
  double sum(double v) override { return v; }
  double max(double v) override { return v; }
  double min(double v) override { return v; }
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  void broadcast_bytes(void*, std::size_t) override {}
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes) override {
    std::memcpy(receive, send, bytes);
  }
};

// What the thread ranks share: each rank's input for the call under way.
struct exchange {
  explicit exchange(int ranks) : inputs(static_cast<std::size_t>(ranks)), sync(ranks) {}
  std::vector<const unsigned char*> inputs;
  std::barrier<> sync;
};

// One thread rank's backend. With `wrong_peer`, a rank takes what `from` sends it from rank
// from + 1 instead (a misrouted transfer).
class peer_copy_backend final : public collective_backend {
 public:
  peer_copy_backend(exchange& shared, int rank, bool wrong_peer)
      : shared_(shared), rank_(rank), wrong_peer_(wrong_peer) {}
  std::string description() const override { return "threads"; }
  std::unique_ptr<comm_buffer> allocate(std::size_t bytes) override {
    return std::make_unique<host_comm_buffer>(bytes);
  }
  std::string unsupported(collective c, element_type, reduce_op, bool) const override {
    return schema::kind_of(c).transfer == nullptr ? "not point-to-point" : "";
  }
  std::size_t run(collective c, comm_buffer* send, comm_buffer& recv, const call_shape& shape, element_type type,
                  reduce_op, int) override {
    const auto transfer = schema::kind_of(c).transfer;
    const int n = static_cast<int>(shared_.inputs.size());
    const std::size_t element = element_size(type);
    // In place, the input is published as a copy: the receive buffer is overwritten.
    std::vector<unsigned char> copy;
    if (send == nullptr) {
      copy.resize(shape.send_count * element);
      recv.read(0, copy.data(), copy.size());
    }
    shared_.inputs[static_cast<std::size_t>(rank_)] =
        send != nullptr ? static_cast<const unsigned char*>(send->data()) : copy.data();
    shared_.sync.arrive_and_wait();
    auto* out = static_cast<unsigned char*>(recv.data());
    for (int from = 0; from < n; ++from) {
      const auto t = transfer(shape, from, rank_, n);
      const int source = wrong_peer_ ? (from + 1) % n : from;
      std::memcpy(out + t.recv_offset * element,
                  shared_.inputs[static_cast<std::size_t>(source)] + t.send_offset * element, t.count * element);
    }
    shared_.sync.arrive_and_wait();  // every rank has read the inputs before they change
    return 0;
  }
  void synchronize() override {}

 private:
  exchange& shared_;
  int rank_;
  bool wrong_peer_;
};

// Rank 0's rows of a sweep of `collectives` over `ranks` thread ranks.
std::vector<sweep_row> sweep_on_threads(int ranks, const sweep_settings& s, bool wrong_peer = false) {
  lone_process process;
  auto group = std::make_shared<thread_group>(process, ranks);
  exchange shared(ranks);
  std::vector<std::vector<sweep_row>> rows(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int t = 0; t < ranks; ++t) {
    threads.emplace_back([&, t] {
      thread_rank world(group, t);
      peer_copy_backend backend(shared, t, wrong_peer);
      rows[static_cast<std::size_t>(t)] = run_sweep(world, backend, s);
    });
  }
  for (auto& thread : threads) thread.join();
  return rows.front();
}

sweep_settings small_sweep(std::vector<collective> collectives, element_type type) {
  sweep_settings s;
  s.collectives = std::move(collectives);
  s.type = type;
  s.min_bytes = 8;
  s.max_bytes = 32 * 1024;
  s.factor = 8;
  s.warmup_iterations = 1;
  s.iterations = 2;
  return s;
}

std::vector<collective> point_to_point_collectives() {
  std::vector<collective> p2p;
  for (const auto& kind : schema::collective_kinds()) {
    if (kind.transfer != nullptr) p2p.push_back(kind.id);
  }
  return p2p;
}

TEST(CollectiveThreads, EveryReceivedElementOfEveryPointToPointCollectiveIsExactOnFiveRanks) {
  for (const auto type : {element_type::int8, element_type::fp64}) {
    const auto rows = sweep_on_threads(5, small_sweep(point_to_point_collectives(), type));
    ASSERT_GE(rows.size(), point_to_point_collectives().size() * 4);
    for (const auto& row : rows) {
      for (const auto* placement : {&row.out_of_place, &row.in_place}) {
        EXPECT_TRUE(placement->ran) << to_string(row.c) << " " << row.bytes << " B: " << placement->skipped;
        EXPECT_EQ(placement->wrong, 0) << to_string(row.c) << " " << to_string(type) << " " << row.bytes << " B";
      }
    }
  }
}

TEST(CollectiveThreads, AMisroutedTransferIsCountedWrong) {
  const auto rows = sweep_on_threads(3, small_sweep(point_to_point_collectives(), element_type::fp32), true);
  ASSERT_FALSE(rows.empty());
  for (const auto& row : rows) {
    EXPECT_GT(row.out_of_place.wrong, 0) << to_string(row.c) << " " << row.bytes << " B";
    EXPECT_GT(row.in_place.wrong, 0) << to_string(row.c) << " " << row.bytes << " B";
  }
}

}  // namespace
}  // namespace ironbench::comm
