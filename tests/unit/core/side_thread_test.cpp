// The helper thread runs its work once per start(), beside the caller, and hands back failures.
#include "core/side_thread.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace ironbench::core {
namespace {

TEST(SideThread, RunsTheWorkOncePerStartOnItsOwnThreadAndWaitSeesItsEffects) {
  int runs = 0;  // written by the side thread, read after wait(): ordered by wait()
  std::thread::id where;
  {
    side_thread helper([&] {
      ++runs;
      where = std::this_thread::get_id();
    });
    for (int i = 0; i < 500; ++i) {
      helper.start();
      helper.wait();
      ASSERT_EQ(runs, i + 1);
    }
  }
  EXPECT_NE(where, std::this_thread::get_id());
}

TEST(SideThread, TheWorkRunsBesideTheCaller) {
  // The side thread waits for the caller's flag, which the caller sets only after start():
  // had start() run the work on the caller's thread, this would never finish.
  std::atomic<bool> caller_ran{false};
  side_thread helper([&] {
    while (!caller_ran.load()) std::this_thread::yield();
  });
  helper.start();
  caller_ran = true;
  helper.wait();
  SUCCEED();
}

TEST(SideThread, AFailureIsThrownByWaitAndTheThreadGoesOn) {
  int calls = 0;
  side_thread helper([&] {
    if (++calls == 1) throw std::runtime_error("first run fails");
  });
  helper.start();
  EXPECT_THROW(helper.wait(), std::runtime_error);
  helper.start();
  EXPECT_NO_THROW(helper.wait());
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace ironbench::core
