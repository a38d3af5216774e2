// SIGINT / SIGTERM turn into a flag the runner polls, so that a stopped run still writes what
// it measured.
#pragma once

#include <atomic>

namespace ironbench::cli {

/// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& install_interrupt_flag();

}  // namespace ironbench::cli
