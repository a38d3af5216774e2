// ironbench serve-sim as a child process on a free loopback port, for tests of the serving
// client against it.
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "process.hpp"

namespace ironbench::testing {

/// The port a started server prints on its standard output (the regex's first group), or 0
/// when it has printed none within 30 s (a sanitized server beside fixture setups on two busy
/// cores has taken over 5 s to start; the wait ends as soon as the port shows).
[[nodiscard]] int announced_port(const started_process& process, const std::regex& announcement);

/// The number of requests done that the last of `ironbench serve`'s plain progress lines in
/// `progress` reports ("serve: 12/100 done, ..."), 0 before the first.
[[nodiscard]] int requests_done_in(const std::string& progress);

/// A serve-sim process on a free port, stopped (SIGINT) when the object goes.
class sim_process {
 public:
  explicit sim_process(std::vector<std::string> extra = {});
  sim_process(const sim_process&) = delete;
  sim_process& operator=(const sim_process&) = delete;
  ~sim_process();
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  started_process process_;
  int port_ = 0;
};

}  // namespace ironbench::testing
