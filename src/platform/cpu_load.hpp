// What else ran on the host's CPUs while something was measured: the share a hypervisor stole
// (steal time) and the share other processes used, from the first line of /proc/stat (every
// CPU) read before and after, and this process's own CPU time.
#pragma once

#include <optional>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// The CPU time of every CPU since boot, in clock ticks, from /proc/stat's "cpu" line.
struct cpu_times {
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  /// Every tick counted (guest time is inside user and nice).
  [[nodiscard]] double total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  /// Ticks spent running something on this host (not idle, not waiting, not stolen).
  [[nodiscard]] double busy() const { return user + nice + system + irq + softirq; }
};

/// /proc/stat's first line below `reader`'s root; nullopt when it is missing or malformed.
[[nodiscard]] std::optional<cpu_times> read_cpu_times(const sysfs_reader& reader);

/// Shares of all the host's CPU time over an interval, in percent.
struct cpu_competition {
  double steal_percent = 0;   ///< taken by the hypervisor for other guests
  double busy_percent = 0;    ///< used by every process of this host
  double others_percent = 0;  ///< used by processes other than this one (busy minus `own`)
};

/// The shares between `before` and `after`, given that this process used `own_cpu_s` seconds
/// of CPU meanwhile and a tick lasts 1 / `ticks_per_s` seconds. Nullopt when no tick passed: a
/// /proc/stat that does not advance (some sandboxes show zeros) tells nothing, not "no load".
[[nodiscard]] std::optional<cpu_competition> competition_between(const cpu_times& before, const cpu_times& after,
                                                                 double own_cpu_s, double ticks_per_s);

/// This process's CPU time so far (user and system, every thread), in seconds.
[[nodiscard]] double process_cpu_seconds();

/// Clock ticks per second (sysconf(_SC_CLK_TCK)).
[[nodiscard]] double clock_ticks_per_second();

}  // namespace ironbench::platform
