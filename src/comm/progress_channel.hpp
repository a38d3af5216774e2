// The side channel that names the ranks a hung job waits for. Rank 0 listens on a TCP socket
// (an ephemeral port on every address, or IRONBENCH_PROGRESS_ADDRESS); its port, addresses and
// a random token reach the other ranks through the bootstrap at start-up, before anything can
// hang; each other rank connects once and reports every operation it enters, plus a keepalive
// each second, from its own thread. The channel never goes through MPI, NCCL or RCCL, so it
// still speaks when they are stuck. Every socket operation is bounded in time and a peer that
// vanishes never crashes either side (its rank is then reported as having died).
//
// Deaths are seen both ways: rank 0 sees a rank's connection close without "done", and every
// other rank sees rank 0's close without "done" (it ended normally) or "over" (it wrote a
// verdict and ends the job). For the second case each other rank also listens on a socket of
// its own that it never talks on (a beacon: the kernel accepts a connection to it while the
// process lives); its address reaches every rank at start-up, so that when rank 0 is gone each
// rank can tell whether a lower rank is still alive, and the lowest one reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "comm/communicator.hpp"
#include "comm/hang_culprits.hpp"

namespace ironbench::comm {

/// Environment variable: comma-separated IPv4 addresses of rank 0 the other ranks try, in
/// order (default: every address of rank 0's interfaces that is up, loopback first for ranks
/// on rank 0's machine and last for the others).
inline constexpr const char* progress_address_variable = "IRONBENCH_PROGRESS_ADDRESS";

class progress_channel {
 public:
  /// Starts this rank's half: rank 0 listens (and counts itself as reporting); other ranks
  /// only remember their rank. connect() completes it.
  progress_channel(int rank, int size, std::string host);
  progress_channel(const progress_channel&) = delete;
  progress_channel& operator=(const progress_channel&) = delete;
  /// Other ranks say "done" and close; rank 0 stops listening.
  ~progress_channel();

  /// Collective over `world` (every rank calls it once, after construction): rank 0 shares its
  /// address, the others connect and report. A rank that cannot reach rank 0 prints one
  /// warning line and is left out of verdicts (unmonitored); nothing throws for the network.
  void connect(bootstrap& world);

  /// This rank enters its next operation, named `name` (numbered 1, 2, ... in call order: every
  /// rank must enter the same operations in the same order).
  void enter(const std::string& name);

  /// Called (on the channel's thread, no lock held) when rank 0 sees a rank's connection close
  /// without "done", and when another rank sees rank 0's connection end (see rank0_state).
  /// Set before connect().
  void on_event(std::function<void()> handler);

  /// Rank 0: the verdict from every rank's last report now.
  [[nodiscard]] hang_verdict verdict(hang_cause cause = hang_cause::no_progress);
  /// Rank 0: every rank's last report now (silent_s measured now).
  [[nodiscard]] std::vector<rank_progress> snapshot();
  /// Rank 0: whether some rank's connection closed without "done".
  [[nodiscard]] bool lost_a_rank();
  /// Rank 0: tells every connected rank that it wrote the verdict and ends the job ("over").
  void end_job();

  /// Other ranks: what rank 0's end of the channel did.
  enum class rank0_link {
    connected,  ///< open (or never opened: an unmonitored rank)
    finished,   ///< rank 0 said "done": it ended on its own terms
    ended_job,  ///< rank 0 said "over": it wrote the verdict and ends the job
    lost,       ///< it closed without either: rank 0 died
  };
  [[nodiscard]] rank0_link rank0_state();
  /// Other ranks, once rank 0 is lost: the lowest rank above 0 whose beacon still answers
  /// (this rank when none below it does), probing the lower ranks in order.
  [[nodiscard]] int lowest_rank_alive();
  /// Other ranks, once rank 0 is lost: the verdict this rank reports (rank 0 and the other
  /// ranks whose beacons no longer answer died).
  [[nodiscard]] hang_verdict lost_rank0_verdict();

  /// Other ranks: waits until rank 0's end of the channel closes or says "over" (or "done"),
  /// or `grace` passes.
  void wait_for_rank0(std::chrono::duration<double> grace);

  [[nodiscard]] int rank() const { return rank_; }

 private:
  struct state;
  int rank_;
  std::unique_ptr<state> state_;
};

}  // namespace ironbench::comm
