// Ranks that are threads: two "processes" of three threads each, every thread a rank, over
// an in-memory process world; every exchange must give what six separate ranks would.
#include "comm/thread_ranks.hpp"

#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <thread>

namespace ironbench::comm {
namespace {

// The processes of a job in one address space: each endpoint is one process's bootstrap.
class in_memory_world {
 public:
  explicit in_memory_world(int processes)
      : size_(processes), sync_(processes), values_(processes), texts_(processes), blocks_(processes) {}

  class endpoint final : public bootstrap {
   public:
    endpoint(in_memory_world& w, int rank) : w_(w), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return w_.size_; }
    std::string description() const override { return "in-memory"; }
    void barrier() override { w_.sync_.arrive_and_wait(); }
    double sum(double v) override {
      return reduce(v, [](double a, double b) { return a + b; });
    }
    double max(double v) override {
      return reduce(v, [](double a, double b) { return std::max(a, b); });
    }
    double min(double v) override {
      return reduce(v, [](double a, double b) { return std::min(a, b); });
    }
    std::vector<std::string> gather(const std::string& text) override {
      w_.texts_[rank_] = text;
      w_.sync_.arrive_and_wait();
      std::vector<std::string> all = rank_ == 0 ? w_.texts_ : std::vector<std::string>{};
      w_.sync_.arrive_and_wait();
      return all;
    }
    void broadcast_bytes(void* data, std::size_t bytes) override {
      if (rank_ == 0) w_.blocks_[0].assign(static_cast<char*>(data), static_cast<char*>(data) + bytes);
      w_.sync_.arrive_and_wait();
      std::memcpy(data, w_.blocks_[0].data(), bytes);
      w_.sync_.arrive_and_wait();
    }
    void all_gather_bytes(const void* send, void* receive, std::size_t bytes) override {
      w_.blocks_[rank_].assign(static_cast<const char*>(send), static_cast<const char*>(send) + bytes);
      w_.sync_.arrive_and_wait();
      for (int r = 0; r < w_.size_; ++r)
        std::memcpy(static_cast<char*>(receive) + r * bytes, w_.blocks_[r].data(), bytes);
      w_.sync_.arrive_and_wait();
    }

   private:
    template <typename F>
    double reduce(double v, F f) {
      w_.values_[rank_] = v;
      w_.sync_.arrive_and_wait();
      double r = w_.values_[0];
      for (int i = 1; i < w_.size_; ++i) r = f(r, w_.values_[i]);
      w_.sync_.arrive_and_wait();
      return r;
    }
    in_memory_world& w_;
    int rank_;
  };

 private:
  int size_;
  std::barrier<> sync_;
  std::vector<double> values_;
  std::vector<std::string> texts_;
  std::vector<std::vector<char>> blocks_;
};

struct seen {
  int rank = -1, size = -1;
  double sum = 0, max = 0, min = 0;
  std::vector<std::string> gathered;
  int broadcast = 0;
  std::vector<int> all;
};

TEST(ThreadRanks, TwoProcessesOfThreeThreadsBehaveAsSixRanks) {
  constexpr int processes = 2, threads = 3, ranks = processes * threads;
  in_memory_world world(processes);
  std::vector<std::unique_ptr<in_memory_world::endpoint>> endpoints;
  std::vector<std::shared_ptr<thread_group>> groups;
  for (int p = 0; p < processes; ++p) {
    endpoints.push_back(std::make_unique<in_memory_world::endpoint>(world, p));
    groups.push_back(std::make_shared<thread_group>(*endpoints.back(), threads));
  }
  std::vector<seen> results(ranks);
  std::vector<std::thread> workers;
  for (int p = 0; p < processes; ++p) {
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, p, t] {
        thread_rank me(groups[static_cast<std::size_t>(p)], t);
        auto& out = results[static_cast<std::size_t>(me.rank())];
        out.rank = me.rank();
        out.size = me.size();
        me.barrier();
        out.sum = me.sum(me.rank() + 1);
        out.max = me.max(me.rank() * 10);
        out.min = me.min(100 - me.rank());
        out.gathered = me.gather("rank " + std::to_string(me.rank()));
        out.broadcast = me.rank() == 0 ? 4242 : -1;
        me.broadcast_bytes(&out.broadcast, sizeof out.broadcast);
        const int mine = 7 * me.rank();
        out.all.assign(ranks, -1);
        me.all_gather_bytes(&mine, out.all.data(), sizeof mine);
      });
    }
  }
  for (auto& w : workers) w.join();
  for (int r = 0; r < ranks; ++r) {
    const auto& s = results[static_cast<std::size_t>(r)];
    EXPECT_EQ(s.rank, r);
    EXPECT_EQ(s.size, ranks);
    EXPECT_EQ(s.sum, 21);  // 1 + ... + 6
    EXPECT_EQ(s.max, 50);
    EXPECT_EQ(s.min, 95);
    EXPECT_EQ(s.broadcast, 4242);
    for (int k = 0; k < ranks; ++k) EXPECT_EQ(s.all[static_cast<std::size_t>(k)], 7 * k) << "rank " << r;
    if (r == 0) {
      ASSERT_EQ(s.gathered.size(), static_cast<std::size_t>(ranks));
      for (int k = 0; k < ranks; ++k) EXPECT_EQ(s.gathered[static_cast<std::size_t>(k)], "rank " + std::to_string(k));
    } else {
      EXPECT_TRUE(s.gathered.empty());
    }
  }
}

}  // namespace
}  // namespace ironbench::comm
