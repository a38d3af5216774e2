#include "comm/pairwise_job.hpp"

#include <fmt/format.h>

#include <chrono>

#include "comm/launch_environment.hpp"
#include "comm/node_ranks.hpp"
#include "comm/watchdog.hpp"
#include "core/error.hpp"
#if IRONBENCH_WITH_MPI
#include <mpi.h>

#include <algorithm>
#include <thread>

#include "comm/mpi/mpi_communicator.hpp"
#include "comm/mpi/mpi_peer_exchange.hpp"
#endif

namespace ironbench::comm {
namespace {

#if IRONBENCH_WITH_MPI
// The sweep's world, whose barriers and votes wait without spinning. Most ranks spend most of a
// sweep in them (the ranks that do not measure, and all but two while suspects are measured
// again), and where a node has fewer cores than ranks, a rank spinning in MPI_Barrier takes the
// core a measuring rank needs: it sleeps between tests of a non-blocking barrier instead.
class unhurried_world final : public bootstrap {
 public:
  explicit unhurried_world(std::shared_ptr<bootstrap> inner) : inner_(std::move(inner)) {}
  [[nodiscard]] int rank() const override { return inner_->rank(); }
  [[nodiscard]] int size() const override { return inner_->size(); }
  [[nodiscard]] std::string description() const override { return inner_->description(); }
  void barrier() override {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    wait(request);
  }
  [[nodiscard]] double sum(double value) override { return inner_->sum(value); }
  [[nodiscard]] double max(double value) override {
    double result = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Iallreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &request), "MPI_Iallreduce");
    wait(request);
    return result;
  }
  [[nodiscard]] double min(double value) override { return inner_->min(value); }
  [[nodiscard]] std::vector<std::string> gather(const std::string& text) override { return inner_->gather(text); }
  void broadcast_bytes(void* data, std::size_t bytes) override { inner_->broadcast_bytes(data, bytes); }
  void all_gather_bytes(const void* send, void* receive, std::size_t bytes_per_rank) override {
    inner_->all_gather_bytes(send, receive, bytes_per_rank);
  }

 private:
  static void check(int code, const char* call) {
    if (code != MPI_SUCCESS) throw error(fmt::format("{} failed (MPI error {})", call, code));
  }
  // Tests `request` every 20 us at first, every millisecond after a while.
  static void wait(MPI_Request& request) {
    auto pause = std::chrono::microseconds(20);
    for (;;) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done != 0) return;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(1000));
    }
  }

  std::shared_ptr<bootstrap> inner_;
};
#endif

}  // namespace

std::shared_ptr<bootstrap> pairwise_world() {
  const auto launch = detect_launch();
  if (launch.size < 2) {
    throw usage_error("--pairs needs at least 2 ranks: run it under mpirun or srun (one rank per node, or more)");
  }
#if IRONBENCH_WITH_MPI
  return mpi_world();
#else
  throw usage_error(
      fmt::format("--pairs: this process is rank {} of {} ({}), and this build has no MPI (install "
                  "libopenmpi-dev and rebuild)",
                  launch.rank, launch.size, launch.launcher));
#endif
}

pairwise_result run_pairwise_on_job(const pairwise_settings& settings, double timeout_s,
                                    const std::atomic<bool>* cancel,
                                    const std::function<void(const hang_verdict&)>& rank0_on_hang) {
  const auto world = pairwise_world();
#if IRONBENCH_WITH_MPI
  watchdog guard(std::chrono::duration<double>(timeout_s), world->rank());
  // Rank 0 writes the run on a hang or a death; the lowest rank alive when rank 0 died.
  if (rank0_on_hang) guard.on_hang(rank0_on_hang);
  // Every rank enters each round: a hang names the ranks that never did.
  guard.watch_ranks(*world, this_host_name());
  auto s = settings;
  s.progress = [&guard, outer = settings.progress](const std::string& step) {
    guard.heartbeat(step);
    if (outer) outer(step);
  };
  const auto peers = mpi_peer_exchange();
  unhurried_world unhurried(world);
  return run_pairwise(unhurried, *peers, this_host_name(), s, cancel);
#else
  (void)settings, (void)timeout_s, (void)cancel, (void)world, (void)rank0_on_hang;
  throw usage_error("--pairs needs MPI, and this build has none");
#endif
}

}  // namespace ironbench::comm
