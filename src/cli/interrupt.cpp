#include "cli/interrupt.hpp"

#include <csignal>

namespace ironbench::cli {
namespace {

// A signal handler can only reach static storage; this flag is written there and nowhere else.
std::atomic<bool> interrupted{false};

extern "C" void on_signal(int) { interrupted.store(true); }

}  // namespace

const std::atomic<bool>& install_interrupt_flag() {
  static const bool installed = [] {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    return true;
  }();
  (void)installed;
  return interrupted;
}

}  // namespace ironbench::cli
