// The progress channel on loopback, its ranks threads of this process (comm/thread_ranks.hpp).
#include "comm/progress_channel.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "comm/job_world.hpp"
#include "comm/thread_ranks.hpp"

namespace ironbench::comm {
namespace {

using namespace std::chrono_literals;

// Waits until `done` holds (the monitor reads its sockets every 200 ms at most).
template <typename Done>
bool eventually(Done done) {
  for (int i = 0; i < 100; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

std::vector<rank_progress>::const_iterator find_rank(const std::vector<rank_progress>& all, int rank) {
  return std::find_if(all.begin(), all.end(), [rank](const auto& r) { return r.rank == rank; });
}

TEST(ProgressChannel, RankZeroSeesEveryRanksOperationsAndNamesTheOneBehind) {
  auto process = one_process_world();
  auto group = std::make_shared<thread_group>(*process, 3);
  std::unique_ptr<progress_channel> zero;
  std::vector<std::unique_ptr<progress_channel>> others(3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      thread_rank me(group, t);
      auto channel = std::make_unique<progress_channel>(t, 3, t == 2 ? "node-b" : "node-a");
      channel->connect(me);
      if (t == 0) {
        zero = std::move(channel);
      } else {
        others[static_cast<std::size_t>(t)] = std::move(channel);
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(zero);
  zero->enter("first");
  zero->enter("second");
  others[1]->enter("first");
  others[1]->enter("second");
  others[2]->enter("first");
  ASSERT_TRUE(eventually([&] {
    const auto all = zero->snapshot();
    return find_rank(all, 1)->operation == 2 && find_rank(all, 2)->operation == 1;
  }));
  const auto verdict = zero->verdict();
  EXPECT_EQ(verdict.furthest, 2u);
  EXPECT_EQ(verdict.furthest_name, "second");
  ASSERT_EQ(verdict.culprits.size(), 1u);
  EXPECT_EQ(verdict.culprits[0].rank, 2);
  EXPECT_EQ(verdict.culprits[0].host, "node-b");

  // A rank that ends normally says so; one whose connection breaks is reported dead.
  others[1].reset();
  ASSERT_TRUE(eventually([&] { return find_rank(zero->snapshot(), 1)->state == rank_progress::link::finished; }));
  EXPECT_TRUE(zero->verdict().culprits.size() == 1);
}

TEST(ProgressChannel, RankOneWaitsForRankZeroOnlyWhileItLives) {
  auto process = one_process_world();
  auto group = std::make_shared<thread_group>(*process, 2);
  std::unique_ptr<progress_channel> zero, one;
  std::thread other([&] {
    thread_rank me(group, 1);
    one = std::make_unique<progress_channel>(1, 2, "b");
    one->connect(me);
  });
  {
    thread_rank me(group, 0);
    zero = std::make_unique<progress_channel>(0, 2, "a");
    zero->connect(me);
  }
  other.join();
  // Rank 1 is connected and reporting.
  const auto before = zero->snapshot();
  EXPECT_EQ(find_rank(before, 1)->state, rank_progress::link::reporting);
  one->enter("x");
  ASSERT_TRUE(eventually([&] { return find_rank(zero->snapshot(), 1)->operation == 1; }));
  one->wait_for_rank0(50ms);  // rank 0 still there: returns after the grace
  zero.reset();               // rank 0 gone: rank 1 returns at once
  const auto start = std::chrono::steady_clock::now();
  one->wait_for_rank0(5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// `n` channels connected as ranks of one job (threads of this process).
std::vector<std::unique_ptr<progress_channel>> job_of(int n, const std::vector<std::string>& hosts) {
  auto process = one_process_world();
  auto group = std::make_shared<thread_group>(*process, n);
  std::vector<std::unique_ptr<progress_channel>> channels(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      thread_rank me(group, t);
      auto channel = std::make_unique<progress_channel>(t, n, hosts[static_cast<std::size_t>(t)]);
      channel->connect(me);
      channels[static_cast<std::size_t>(t)] = std::move(channel);
    });
  }
  for (auto& t : threads) t.join();
  return channels;
}

TEST(ProgressChannel, KeepalivesKeepALiveRankFromLookingStopped) {
  auto job = job_of(2, {"a", "b"});
  job[0]->enter("x");
  job[1]->enter("x");
  std::this_thread::sleep_for(2500ms);  // no operation for 2.5 s: keepalives only
  const auto all = job[0]->snapshot();
  EXPECT_EQ(find_rank(all, 1)->state, rank_progress::link::reporting);
  EXPECT_LT(find_rank(all, 1)->silent_s, 1.6);
  EXPECT_TRUE(job[0]->verdict().culprits.empty());
}

TEST(ProgressChannel, TheOtherRanksHearRankZeroEndTheJob) {
  auto job = job_of(3, {"a", "a", "b"});
  std::atomic<int> events{0};
  job[1]->on_event([&] { ++events; });
  EXPECT_EQ(job[1]->rank0_state(), progress_channel::rank0_link::connected);
  job[0]->end_job();  // rank 0 wrote a verdict
  job[2]->wait_for_rank0(5s);
  EXPECT_EQ(job[2]->rank0_state(), progress_channel::rank0_link::ended_job);
  ASSERT_TRUE(eventually([&] { return events.load() == 1; }));
  EXPECT_EQ(job[1]->rank0_state(), progress_channel::rank0_link::ended_job);
  job[0].reset();  // its close after "over" is no loss
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(job[1]->rank0_state(), progress_channel::rank0_link::ended_job);
  EXPECT_EQ(events.load(), 1);
}

TEST(ProgressChannel, RankZeroEndingNormallyIsNoLoss) {
  auto job = job_of(2, {"a", "b"});
  std::atomic<int> events{0};
  job[1]->on_event([&] { ++events; });
  job[0].reset();
  job[1]->wait_for_rank0(5s);
  EXPECT_EQ(job[1]->rank0_state(), progress_channel::rank0_link::finished);
  EXPECT_EQ(events.load(), 0);
}

TEST(ProgressChannel, RankZeroSeesARankThatEndedNormallyAsNoDeath) {
  auto job = job_of(2, {"a", "b"});
  std::atomic<int> events{0};
  job[0]->on_event([&] { ++events; });
  job[1].reset();
  ASSERT_TRUE(eventually([&] { return find_rank(job[0]->snapshot(), 1)->state == rank_progress::link::finished; }));
  EXPECT_FALSE(job[0]->lost_a_rank());
  EXPECT_EQ(events.load(), 0);
}

TEST(ProgressChannel, TheLowestRankAliveIsFoundByItsBeacon) {
  auto job = job_of(4, {"a", "a", "b", "b"});
  job[3]->enter("x");
  EXPECT_EQ(job[3]->lowest_rank_alive(), 1);
  EXPECT_EQ(job[1]->lowest_rank_alive(), 1);
  job[1].reset();  // rank 1 gone: its beacon no longer answers
  EXPECT_EQ(job[3]->lowest_rank_alive(), 2);
  EXPECT_EQ(job[2]->lowest_rank_alive(), 2);
  const auto v = job[2]->lost_rank0_verdict();
  EXPECT_EQ(v.cause, hang_cause::rank0_died);
  EXPECT_EQ(v.reporter, 2);
  ASSERT_EQ(v.culprits.size(), 2u);
  EXPECT_EQ(v.culprits[0].rank, 0);
  EXPECT_EQ(v.culprits[0].host, "a");
  EXPECT_EQ(v.culprits[1].rank, 1);
  EXPECT_EQ(v.culprits[1].host, "a");
}

TEST(ProgressChannel, OneRankAloneIsItsOwnVerdict) {
  progress_channel alone(0, 1, "a");
  auto world = one_process_world();
  alone.connect(*world);
  alone.enter("only");
  const auto v = alone.verdict();
  EXPECT_EQ(v.furthest, 1u);
  EXPECT_TRUE(v.culprits.empty());
}

}  // namespace
}  // namespace ironbench::comm
