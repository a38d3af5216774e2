// The side channel that names the ranks a hung job waits for. Rank 0 listens on a TCP socket
// (an ephemeral port on every address, or IRONBENCH_PROGRESS_ADDRESS); its port, addresses and
// a random token reach the other ranks through the bootstrap at start-up, before anything can
// hang; each other rank connects once and reports every operation it enters, plus a keepalive
// each second, from its own thread. The channel never goes through MPI, NCCL or RCCL, so it
// still speaks when they are stuck. Every socket operation is bounded in time and a peer that
// vanishes never crashes either side (its rank is then reported as having died).
#pragma once

#include <chrono>
#include <cstdint>
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

  /// Rank 0: the verdict from every rank's last report now.
  [[nodiscard]] hang_verdict verdict();
  /// Rank 0: every rank's last report now.
  [[nodiscard]] std::vector<rank_progress> snapshot();

  /// Other ranks: waits until rank 0 closes the channel (it exited) or `grace` passes.
  void wait_for_rank0(std::chrono::duration<double> grace);

  [[nodiscard]] int rank() const { return rank_; }

 private:
  struct state;
  int rank_;
  std::unique_ptr<state> state_;
};

}  // namespace ironbench::comm
