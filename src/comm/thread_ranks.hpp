// Several ranks in one process, one thread each (nccl-tests' -t / -g): each thread sees a
// bootstrap whose rank is process rank x threads + thread. Only thread 0 calls the process's
// bootstrap (MPI), so thread 0 must be the thread that initialised MPI.
#pragma once

#include <barrier>
#include <memory>
#include <string>
#include <vector>

#include "comm/communicator.hpp"

namespace ironbench::comm {

/// What the threads of one process share: the process's bootstrap and the scratch space of
/// each exchange.
class thread_group {
 public:
  /// `process` must outlive the group; `threads` >= 1.
  thread_group(bootstrap& process, int threads);

 private:
  friend class thread_rank;
  bootstrap& process_;
  int threads_;
  std::barrier<> sync_;
  std::vector<double> values_;
  double result_ = 0;
  std::vector<std::string> texts_;
  std::vector<std::string> gathered_;
  std::vector<std::vector<unsigned char>> slots_;
  std::vector<unsigned char> bytes_;
};

/// The bootstrap of one thread of a group. Every thread of every process must make the same
/// calls in the same order, as with any bootstrap.
class thread_rank final : public bootstrap {
 public:
  thread_rank(std::shared_ptr<thread_group> group, int thread);
  [[nodiscard]] int rank() const override;
  [[nodiscard]] int size() const override;
  [[nodiscard]] std::string description() const override;
  void barrier() override;
  [[nodiscard]] double sum(double value) override;
  [[nodiscard]] double max(double value) override;
  [[nodiscard]] double min(double value) override;
  [[nodiscard]] std::vector<std::string> gather(const std::string& text) override;
  void broadcast_bytes(void* data, std::size_t bytes) override;
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) override;

 private:
  enum class fold { sum, max, min };
  double reduce(double value, fold how);

  std::shared_ptr<thread_group> group_;
  int thread_;
};

}  // namespace ironbench::comm
