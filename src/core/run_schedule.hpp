// Which cases of a plan run side by side, and in what order.
//
// Concurrent (ironbench run's default): the run goes through four stages, each ending before
// the next starts. 1 gpus: every GPU measures its own cases, one at a time per GPU, all GPUs
// side by side, as a node works in production. 2 host_links: host<->GPU copies, one at a time,
// so that each GPU's number is its own link's. 3 peers: cases over several GPUs (p2p), side by
// side where they share no GPU. 4 host: the CPU's cases, alone, after the GPUs (they would take
// the host threads and memory bandwidth the GPU cases rely on).
// Sequential (--sequential): one case at a time in the plan's order.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/planned_case.hpp"

namespace ironbench::core {

enum class schedule_mode { concurrent, sequential };

[[nodiscard]] const char* to_string(schedule_mode mode);

enum class run_stage { gpus, host_links, peers, host };

/// "gpus", "host_links", "peers", "host".
[[nodiscard]] const char* to_string(run_stage stage);
/// What a stage runs and how, in a few words ("GPUs side by side, one case at a time per GPU").
[[nodiscard]] const char* describe(run_stage stage);

/// One planned case as the scheduler sees it.
struct scheduled_case {
  std::size_t index = 0;  ///< in the plan
  run_stage stage = run_stage::host;
  std::size_t step = 0;              ///< no case starts before every case of an earlier step has ended
  std::vector<std::string> devices;  ///< the devices it drives: its own first, then the others
  bool alone = false;                ///< nothing runs beside it
};

/// The plan's cases in `mode` (see the top of this header), in plan order.
[[nodiscard]] std::vector<scheduled_case> schedule_plan(const std::vector<planned_case>& plan, schedule_mode mode);

/// Decides when each scheduled case may start, and keeps what a hung case held from others.
/// A value: copying it copies the state (the time estimate simulates the rest of a run on a
/// copy).
class case_dispatcher {
 public:
  explicit case_dispatcher(std::vector<scheduled_case> cases);

  [[nodiscard]] const std::vector<scheduled_case>& cases() const { return cases_; }

  /// Positions (in cases()) of the pending cases that may start now, in order: those of the
  /// earliest step left whose devices are free (and not lost), none beside a case that runs
  /// alone, and a case that runs alone only when nothing runs. They count as running from now on.
  [[nodiscard]] std::vector<std::size_t> start_ready();
  /// The case at `position` ended; what it held is free again.
  void finish(std::size_t position);
  /// The case at `position` did not end within its time limit: its devices stay taken for
  /// the rest of the run (they are lost), and the scheduler no longer waits for it.
  void abandon(std::size_t position);
  /// Pending cases that need a lost device, removed from those pending, each with the device.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::string>> take_stranded();
  /// Drops every pending case (the run was interrupted); running cases still finish.
  void drop_pending();

  [[nodiscard]] bool idle() const { return running_.empty() && pending_.empty(); }
  [[nodiscard]] const std::vector<std::size_t>& running() const { return running_; }
  [[nodiscard]] const std::vector<std::size_t>& pending() const { return pending_; }
  [[nodiscard]] const std::vector<std::string>& lost_devices() const { return lost_; }

 private:
  [[nodiscard]] bool busy(const std::string& device) const;
  [[nodiscard]] bool lost(const std::string& device) const;

  std::vector<scheduled_case> cases_;
  std::vector<std::size_t> pending_;  ///< positions, in order
  std::vector<std::size_t> running_;
  std::vector<std::string> lost_;
};

}  // namespace ironbench::core
