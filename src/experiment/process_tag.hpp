// Processes found by a mark in their environment: every program a service starts inherits
// IRONBENCH_SERVICE_TAG=TAG, also one that leaves the service's process group and session
// (setsid, a daemon that forks twice) and one whose parent died. Stopping a service stops every
// process with its tag, and a later run finds what an earlier one left (orphan_services.hpp).
#pragma once

#include <string>
#include <vector>

namespace ironbench::experiment {

/// The environment variable that marks a service's processes.
inline constexpr const char* service_tag_variable = "IRONBENCH_SERVICE_TAG";

/// A tag no other service has: host-unique (pid, time and a counter).
[[nodiscard]] std::string new_service_tag();

/// The live processes (not zombies) of this user whose environment holds
/// IRONBENCH_SERVICE_TAG=`tag`, read from /proc/PID/environ.
[[nodiscard]] std::vector<int> tagged_processes(const std::string& tag);

/// SIGTERM to every process with `tag`, SIGKILL to those left after `grace_s`; returns the pids
/// that were running. Waits (up to 5 s more) until none is left.
std::vector<int> stop_tagged_processes(const std::string& tag, double grace_s);

}  // namespace ironbench::experiment
