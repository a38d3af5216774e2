#include "comm/thread_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/json.hpp"
#include "core/json_text.hpp"

namespace ironbench::comm {

thread_group::thread_group(bootstrap& process, int threads)
    : process_(process),
      threads_(threads),
      sync_(threads),
      values_(static_cast<std::size_t>(threads)),
      texts_(static_cast<std::size_t>(threads)),
      slots_(static_cast<std::size_t>(threads)) {
  if (threads < 1) throw std::invalid_argument("a thread group needs at least one thread");
}

thread_rank::thread_rank(std::shared_ptr<thread_group> group, int thread) : group_(std::move(group)), thread_(thread) {}

int thread_rank::rank() const { return group_->process_.rank() * group_->threads_ + thread_; }

int thread_rank::size() const { return group_->process_.size() * group_->threads_; }

std::string thread_rank::description() const {
  return fmt::format("{}, {} threads per process", group_->process_.description(), group_->threads_);
}

void thread_rank::barrier() {
  auto& g = *group_;
  g.sync_.arrive_and_wait();
  if (thread_ == 0) g.process_.barrier();
  g.sync_.arrive_and_wait();
}

double thread_rank::reduce(double value, fold how) {
  auto& g = *group_;
  g.values_[static_cast<std::size_t>(thread_)] = value;
  g.sync_.arrive_and_wait();
  if (thread_ == 0) {
    double local = g.values_[0];
    for (std::size_t i = 1; i < g.values_.size(); ++i) {
      const double v = g.values_[i];
      local = how == fold::sum ? local + v : how == fold::max ? std::max(local, v) : std::min(local, v);
    }
    g.result_ = how == fold::sum   ? g.process_.sum(local)
                : how == fold::max ? g.process_.max(local)
                                   : g.process_.min(local);
  }
  g.sync_.arrive_and_wait();
  const double result = g.result_;
  g.sync_.arrive_and_wait();  // everyone has read it before the next exchange writes
  return result;
}

double thread_rank::sum(double value) { return reduce(value, fold::sum); }
double thread_rank::max(double value) { return reduce(value, fold::max); }
double thread_rank::min(double value) { return reduce(value, fold::min); }

std::vector<std::string> thread_rank::gather(const std::string& text) {
  auto& g = *group_;
  g.texts_[static_cast<std::size_t>(thread_)] = text;
  g.sync_.arrive_and_wait();
  if (thread_ == 0) {
    // One JSON array of its threads' texts per process, flattened in rank order at rank 0.
    const auto per_process = g.process_.gather(core::json_text(json(g.texts_)));
    g.gathered_.clear();
    for (const auto& list : per_process) {
      for (const auto& t : json::parse(list)) g.gathered_.push_back(t.get<std::string>());
    }
  }
  g.sync_.arrive_and_wait();
  std::vector<std::string> result;
  if (rank() == 0) result = g.gathered_;
  g.sync_.arrive_and_wait();
  return result;
}

void thread_rank::broadcast_bytes(void* data, std::size_t bytes) {
  auto& g = *group_;
  if (thread_ == 0) {
    const auto* in = static_cast<const unsigned char*>(data);
    g.bytes_.assign(in, in + bytes);
    g.process_.broadcast_bytes(g.bytes_.data(), bytes);
  }
  g.sync_.arrive_and_wait();
  if (rank() != 0) std::memcpy(data, g.bytes_.data(), bytes);
  g.sync_.arrive_and_wait();
}

void thread_rank::all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) {
  auto& g = *group_;
  const auto* in = static_cast<const unsigned char*>(send);
  g.slots_[static_cast<std::size_t>(thread_)].assign(in, in + bytes_per_rank);
  g.sync_.arrive_and_wait();
  if (thread_ == 0) {
    std::vector<unsigned char> mine;
    mine.reserve(bytes_per_rank * static_cast<std::size_t>(g.threads_));
    for (const auto& slot : g.slots_) mine.insert(mine.end(), slot.begin(), slot.end());
    g.bytes_.assign(mine.size() * static_cast<std::size_t>(g.process_.size()), 0);
    g.process_.all_gather_bytes(mine.data(), g.bytes_.data(), mine.size());
  }
  g.sync_.arrive_and_wait();
  std::memcpy(receive, g.bytes_.data(), g.bytes_.size());
  g.sync_.arrive_and_wait();
}

}  // namespace ironbench::comm
