#include "comm/watchdog.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "comm/progress_channel.hpp"

namespace ironbench::comm {

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

void watchdog::expire(std::unique_lock<std::mutex>& lock) {
  const auto say = [](const std::string& line) {
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  };
  auto channel = channel_;
  if (!channel) {
    say(fmt::format(
        "ironbench: error: rank {} made no progress for {:.0f} s in {} (a rank died or hangs, or a link is down); "
        "ending the run (--timeout sets the limit)\n",
        rank_, timeout_.count(), step_));
    std::_Exit(1);
  }
  if (rank_ == 0) {
    const auto verdict = channel->verdict();
    say(fmt::format("ironbench: error: {} (--timeout sets the limit)\n", hang_line(verdict, timeout_.count())));
    auto handler = on_hang_;
    lock.unlock();
    if (handler) {
      try {
        handler(verdict);
      } catch (const std::exception& e) {
        say(fmt::format("ironbench: error: writing the results after the hang: {}\n", e.what()));
      }
    }
    std::_Exit(1);
  }
  say(fmt::format(
      "ironbench: error: rank {} made no progress for {:.0f} s in {}; rank 0 names the ranks the job waits for\n",
      rank_, timeout_.count(), step_));
  lock.unlock();
  channel->wait_for_rank0(std::clamp(timeout_, std::chrono::duration<double>(2), std::chrono::duration<double>(60)));
  std::_Exit(1);
}

void watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    const auto deadline = last_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout_);
    if (std::chrono::steady_clock::now() >= deadline) expire(lock);
    wake_.wait_until(lock, deadline, [this] { return stopping_; });
  }
}

}  // namespace ironbench::comm
