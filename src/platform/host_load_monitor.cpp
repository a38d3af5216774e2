#include "platform/host_load_monitor.hpp"

#include <utility>

#include "platform/cpu_load.hpp"

namespace ironbench::platform {
namespace {

class host_load_monitor final : public core::case_monitor {
 public:
  explicit host_load_monitor(std::shared_ptr<const sysfs_reader> reader)
      : reader_(std::move(reader)), before_(read_cpu_times(*reader_)), own_before_s_(process_cpu_seconds()) {}

  core::case_observation finish() override {
    core::case_observation seen;
    const auto after = read_cpu_times(*reader_);
    if (!before_ || !after) return seen;
    const auto shares =
        competition_between(*before_, *after, process_cpu_seconds() - own_before_s_, clock_ticks_per_second());
    if (shares) seen.load = core::host_load{shares->others_percent, shares->steal_percent};
    return seen;
  }

 private:
  std::shared_ptr<const sysfs_reader> reader_;
  std::optional<cpu_times> before_;
  double own_before_s_;
};

}  // namespace

core::case_monitor_factory host_load_monitors(std::shared_ptr<const sysfs_reader> reader) {
  return [reader = std::move(reader)](const core::device_info&) -> std::unique_ptr<core::case_monitor> {
    return std::make_unique<host_load_monitor>(reader);
  };
}

}  // namespace ironbench::platform
