// What makes an experiment's services really its own: every process a service starts carries
// its tag and is stopped with it (one that used setsid included), a service records itself for
// a later run to stop should this one be killed, and an address that already answers is found
// before a service starts.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "experiment/child_process.hpp"
#include "experiment/orphan_services.hpp"
#include "experiment/port_check.hpp"
#include "experiment/process_tag.hpp"
#include "files.hpp"
#include "temp_dir.hpp"

namespace ironbench::experiment::service_processes_test {
namespace {

// The pid a command wrote to `path`, waiting up to 5 s for it.
int pid_in(const std::string& path) {
  for (int i = 0; i < 500; ++i) {
    const auto text = testing::read_file(path);
    if (!text.empty() && text.back() == '\n') return std::stoi(text);
    usleep(10000);
  }
  return -1;
}

bool running(int pid) {
  const auto stat = testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  return !stat.empty() && stat.find(") Z ") == std::string::npos;
}

TEST(ServiceProcesses, StoppingAServiceStopsAChildThatLeftItsGroupWithSetsid) {
  const testing::temp_dir dir("ironbench-service");
  const auto tag = new_service_tag();
  child_process p({"setsid sleep 300 & echo $! > escaped; wait", {}, dir.str(), dir.str() + "/log", 2, tag});
  const int escaped = pid_in(dir.str() + "/escaped");
  ASSERT_GT(escaped, 0);
  EXPECT_TRUE(running(escaped));
  // `$!` is known before the child has called setsid(): wait for it to leave the group.
  for (int i = 0; i < 500 && getpgid(escaped) == p.pid(); ++i) usleep(10000);
  EXPECT_NE(getpgid(escaped), p.pid()) << "it left the service's process group";
  // A process in the middle of execve (setsid turning into sleep) shows no environment for a
  // moment: the scan finds it once the exec is done (stop() keeps looking for that reason).
  const auto tagged_escaped = [&] {
    const auto tagged = tagged_processes(tag);
    return std::find(tagged.begin(), tagged.end(), escaped) != tagged.end();
  };
  for (int i = 0; i < 500 && !tagged_escaped(); ++i) usleep(10000);
  EXPECT_TRUE(tagged_escaped()) << "found by its tag";
  (void)p.stop();
  EXPECT_FALSE(running(escaped)) << "found by its tag and stopped";
  EXPECT_TRUE(tagged_processes(tag).empty());
}

// The kernel ties the keeper to its runner (PR_SET_PDEATHSIG) and makes it the subreaper of the
// program's tree: a runner killed with SIGKILL leaves nothing running, not the shell, not what
// it started in its group, not what left the group with setsid (no tag needed).
TEST(ServiceProcesses, NothingAProgramStartedOutlivesItsRunnerKilledWithSigkill) {
  const testing::temp_dir dir("ironbench-service");
  const pid_t runner = fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    child_process p({"echo $$ > shell; setsid sleep 300 & echo $! > escaped; sleep 300 & echo $! > plain; wait",
                     {},
                     dir.str(),
                     dir.str() + "/log",
                     2,
                     ""});
    pause();
    _exit(0);
  }
  const int shell = pid_in(dir.str() + "/shell");
  const int escaped = pid_in(dir.str() + "/escaped");
  const int plain = pid_in(dir.str() + "/plain");
  ASSERT_GT(shell, 0);
  ASSERT_GT(escaped, 0);
  ASSERT_GT(plain, 0);
  for (int i = 0; i < 500 && getpgid(escaped) == shell; ++i) usleep(10000);
  EXPECT_NE(getpgid(escaped), shell) << "it left the program's process group";
  kill(runner, SIGKILL);
  int status = 0;
  waitpid(runner, &status, 0);
  // SIGTERM reaches every one at once (the grace period, 2 s, is for those that ignore it).
  for (int i = 0; i < 500 && (running(shell) || running(escaped) || running(plain)); ++i) usleep(10000);
  EXPECT_FALSE(running(shell)) << "the program's shell";
  EXPECT_FALSE(running(plain)) << "a process of its group";
  EXPECT_FALSE(running(escaped)) << "a process that left its group";
}

// A program that exits takes what it left running with it, and its status is the program's.
TEST(ServiceProcesses, WhatAnEndedProgramLeftRunningEndsWithIt) {
  const testing::temp_dir dir("ironbench-service");
  child_process p({"setsid sleep 300 & echo $! > escaped; exit 3", {}, dir.str(), dir.str() + "/log", 2, ""});
  const int escaped = pid_in(dir.str() + "/escaped");
  ASSERT_GT(escaped, 0);
  EXPECT_EQ(p.wait_for(30), 3);
  EXPECT_FALSE(running(escaped));
}

TEST(ServiceProcesses, ALaterRunStopsWhatAnEarlierRunLeftAndSaysSo) {
  const testing::temp_dir dir("ironbench-service");
  const auto record_path = dir.str() + "/services.pids";
  const service_record record(record_path);
  const auto tag = new_service_tag();
  // A service whose runner died: its processes still run with the tag, the record names it.
  const pid_t orphan = fork();
  ASSERT_GE(orphan, 0);
  if (orphan == 0) {
    setenv(service_tag_variable, tag.c_str(), 1);
    execl("/bin/sleep", "sleep", "300", static_cast<char*>(nullptr));
    _exit(127);
  }
  record.add(tag, "engine");
  for (int i = 0; i < 500 && tagged_processes(tag).empty(); ++i) usleep(10000);
  ASSERT_FALSE(tagged_processes(tag).empty());
  std::ostringstream console;
  record.stop_orphans(console, 2);
  EXPECT_EQ(console.str(), "service 'engine' of an earlier run was still running: stopped 1 process (pid " +
                               std::to_string(orphan) + ")\n");
  EXPECT_TRUE(tagged_processes(tag).empty());
  EXPECT_EQ(testing::read_file(record_path), "") << "the record is emptied";
  int status = 0;
  waitpid(orphan, &status, 0);
  std::ostringstream nothing;
  record.stop_orphans(nothing);
  EXPECT_EQ(nothing.str(), "");
}

TEST(ServiceProcesses, AnAddressThatAlreadyAnswersIsFound) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t length = sizeof a;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&a), &length), 0);
  const auto port = std::to_string(ntohs(a.sin_port));
  EXPECT_EQ(address_in_use("http://127.0.0.1:" + port + "/v1"), "127.0.0.1:" + port);
  EXPECT_EQ(address_in_use("http://user:pw@127.0.0.1:" + port), "127.0.0.1:" + port);
  close(listener);
  EXPECT_EQ(address_in_use("http://127.0.0.1:" + port), std::nullopt);
  EXPECT_EQ(address_in_use("not a url"), std::nullopt);
}

}  // namespace
}  // namespace ironbench::experiment::service_processes_test
