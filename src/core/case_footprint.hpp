// What a case occupies while it runs besides its own device: the scheduler keeps cases that
// would share these apart (run_schedule.hpp).
#pragma once

#include <string>
#include <vector>

namespace ironbench::core {

struct case_footprint {
  /// Other devices the case drives, by id (p2p: the peer GPU). Cases whose device sets do
  /// not meet may run side by side; a case never runs beside another on one of its devices.
  std::vector<std::string> other_devices;
  /// The case moves data between the host's memory and a GPU while timed (host<->device
  /// copies): it runs with nothing beside it, so that every GPU's number is its own link's.
  bool host_links = false;
};

}  // namespace ironbench::core
