// The services an experiment has running, written to a file in the experiment's folder
// (services.pids: a service's tag and name a line) while they run, so that a run ended by
// SIGKILL, a crash or a lost node leaves a record: the next run of the experiment stops every
// process still carrying one of those tags (process_tag.hpp) before it starts anything, and
// says so.
#pragma once

#include <ostream>
#include <string>

namespace ironbench::experiment {

/// The record of running services at `path` ("" for none: every call does nothing).
class service_record {
 public:
  explicit service_record(std::string path) : path_(std::move(path)) {}

  /// Adds a service that has just started.
  void add(const std::string& tag, const std::string& name) const;
  /// Removes a service that was stopped (or exited).
  void remove(const std::string& tag) const;
  /// Stops every process of every service the file names (an earlier run's, which did not
  /// stop them), one line on `console` for each service that still had processes, and
  /// empties the record. Waits `grace_s` after SIGTERM before SIGKILL.
  void stop_orphans(std::ostream& console, double grace_s = 10) const;

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ironbench::experiment
