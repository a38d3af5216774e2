// The progress line of a serving point: on a terminal rewritten in place, in a log one line
// per interval.
#include "serve/point/progress_line.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

TEST(ProgressLine, CountsTimeLeftAndTokenRate) {
  load_progress p;
  p.total = 400;
  p.done = 95;
  p.failed = 5;
  p.running = 8;
  p.elapsed_s = 6;
  p.output_tokens_per_s = 1234.4;
  EXPECT_EQ(progress_line(p, false), "serve: 95/400 done, 8 running, 5 failed, 6.0 s, ETA 18 s, 1234 output tok/s\n")
      << "300 of 400 left after 100 ended in 6 s: 18 s";
  EXPECT_EQ(progress_line(p, true),
            "\rserve: 95/400 done, 8 running, 5 failed, 6.0 s, ETA 18 s, 1234 output tok/s\x1b[K");
  EXPECT_EQ(end_of_progress(true), "\r\x1b[K");
  EXPECT_EQ(end_of_progress(false), "");
  p.done = p.failed = 0;
  EXPECT_NE(progress_line(p, false).find("ETA -"), std::string::npos) << "nothing ended yet";
}

}  // namespace
}  // namespace ironbench::serve
