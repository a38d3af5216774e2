#include "comm/watchdog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "comm/progress_channel.hpp"

namespace ironbench::comm {
namespace {

using seconds = std::chrono::duration<double>;

void say(const std::string& line) {
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace

watchdog::watchdog(std::chrono::duration<double> timeout, int rank)
    : timeout_(timeout), rank_(rank), last_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

watchdog::~watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void watchdog::heartbeat(const std::string& step) {
  std::shared_ptr<progress_channel> channel;
  {
    std::lock_guard lock(mutex_);
    step_ = step;
    last_ = std::chrono::steady_clock::now();
    channel = channel_;
  }
  if (channel) channel->enter(step);
}

void watchdog::watch_ranks(bootstrap& world, const std::string& host) {
  auto channel = std::make_shared<progress_channel>(world.rank(), world.size(), host);
  channel->on_event([this] {
    {
      std::lock_guard lock(mutex_);
      event_ = true;
    }
    wake_.notify_all();
  });
  {
    // Attached before the exchange, so that a rank that never arrives is named already.
    std::lock_guard lock(mutex_);
    channel_ = channel;
  }
  channel->connect(world);
}

void watchdog::on_hang(std::function<void(const hang_verdict&)> handler) {
  std::lock_guard lock(mutex_);
  on_hang_ = std::move(handler);
}

void watchdog::report(std::unique_lock<std::mutex>& lock, const hang_verdict& verdict) {
  const auto line = hang_line(verdict, timeout_.count());
  say(verdict.cause == hang_cause::no_progress ? fmt::format("ironbench: error: {} (--timeout sets the limit)\n", line)
                                               : fmt::format("ironbench: error: {}; ending the run\n", line));
  auto handler = on_hang_;
  auto channel = channel_;
  lock.unlock();
  if (handler) {
    try {
      handler(verdict);
    } catch (const std::exception& e) {
      say(fmt::format("ironbench: error: writing the results after the {}: {}\n",
                      verdict.cause == hang_cause::no_progress ? "hang" : "loss", e.what()));
    }
  }
  if (channel && rank_ == 0) {
    channel->end_job();  // the others stop waiting, and none reports again
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::_Exit(1);
}

bool watchdog::expire(std::unique_lock<std::mutex>& lock) {
  auto channel = channel_;
  if (!channel) {
    say(fmt::format(
        "ironbench: error: rank {} made no progress for {:.0f} s in {} (a rank died or hangs, or a link is down); "
        "ending the run (--timeout sets the limit)\n",
        rank_, timeout_.count(), step_));
    std::_Exit(1);
  }
  if (rank_ == 0) {
    // A rank that missed a keepalive may be stopped or only late: wait until it speaks or
    // passes the limit.
    const auto seen = last_;
    lock.unlock();
    auto ranks = channel->snapshot();
    for (int round = 0; round < 3; ++round) {
      const double wait = verdict_wait_s(ranks);
      if (wait <= 0) break;
      std::this_thread::sleep_for(seconds(wait));
      ranks = channel->snapshot();
    }
    lock.lock();
    if (stopping_ || last_ != seen) return false;  // it moved on while we judged
    report(lock, judge_hang(ranks));
  }
  if (channel->rank0_state() == progress_channel::rank0_link::lost) {
    say(fmt::format("ironbench: error: rank {} made no progress for {:.0f} s in {}; rank 0 left the job\n", rank_,
                    timeout_.count(), step_));
    std::_Exit(1);
  }
  say(fmt::format(
      "ironbench: error: rank {} made no progress for {:.0f} s in {}; rank 0 names the ranks the job waits for\n",
      rank_, timeout_.count(), step_));
  lock.unlock();
  // Rank 0 may wait for a doubtful rank's keepalive (up to the silence limit) before judging.
  channel->wait_for_rank0(std::clamp(timeout_, seconds(2), seconds(60)) + seconds(silent_limit_s + 2));
  if (channel->rank0_state() == progress_channel::rank0_link::lost) {
    lock.lock();
    lost_rank0(lock);
  }
  std::_Exit(1);
}

void watchdog::lost_rank0(std::unique_lock<std::mutex>& lock) {
  auto channel = channel_;
  lock.unlock();
  const bool reports = channel->lowest_rank_alive() == rank_;
  const auto verdict = reports ? channel->lost_rank0_verdict() : hang_verdict{};
  lock.lock();
  if (reports && !stopping_) report(lock, verdict);
}

void watchdog::channel_event(std::unique_lock<std::mutex>& lock) {
  auto channel = channel_;
  if (!channel) return;
  if (rank_ == 0) {
    if (!channel->lost_a_rank()) return;
    // The ranks of a node that fails die together: name them all.
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    lock.lock();
    if (!stopping_) report(lock, channel->verdict(hang_cause::rank_died));
    return;
  }
  switch (channel->rank0_state()) {
    case progress_channel::rank0_link::ended_job: std::_Exit(1);  // rank 0 wrote the verdict
    case progress_channel::rank0_link::lost: lost_rank0(lock); return;
    default: return;
  }
}

void watchdog::loop() {
  std::unique_lock lock(mutex_);
  bool rank0_handled = false;
  while (!stopping_) {
    if (event_) {
      event_ = false;
      // Rank 0's end is acted on once; a lost rank on rank 0 ends the process.
      if (rank_ == 0 || !rank0_handled) {
        rank0_handled = rank_ != 0;
        channel_event(lock);
      }
      continue;
    }
    const auto deadline = last_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
    if (std::chrono::steady_clock::now() >= deadline && !expire(lock)) continue;
    wake_.wait_until(lock, deadline, [this] { return stopping_ || event_; });
  }
}

}  // namespace ironbench::comm
