#include "sim_process.hpp"

#include <signal.h>

#include <chrono>
#include <thread>

namespace ironbench::testing {

int announced_port(const started_process& process, const std::regex& announcement) {
  for (int i = 0; i < 1200; ++i) {
    std::smatch m;
    const auto out = read_file(process.out_path);
    if (std::regex_search(out, m, announcement)) return std::stoi(m[1].str());
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return 0;
}

int requests_done_in(const std::string& progress) {
  static const std::regex line(R"(serve: (\d+)/\d+ done)");
  int done = 0;
  for (std::sregex_iterator it(progress.begin(), progress.end(), line), end; it != end; ++it) {
    done = std::stoi((*it)[1].str());
  }
  return done;
}

sim_process::sim_process(std::vector<std::string> extra) {
  std::vector<std::string> args = {"serve-sim", "--port", "0"};
  args.insert(args.end(), extra.begin(), extra.end());
  process_ = start_ironbench(args);
  port_ = announced_port(process_, std::regex(R"(http://127\.0\.0\.1:(\d+)/v1)"));
}

sim_process::~sim_process() {
  kill(process_.pid, SIGINT);
  (void)wait_for(process_);
}

}  // namespace ironbench::testing
