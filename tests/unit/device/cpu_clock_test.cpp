#include "device/cpu/cpu_clock.hpp"

#include <gtest/gtest.h>

namespace ironbench::device {
namespace {

TEST(CpuClock, MeasuresAPlausibleClock) {
#if defined(__x86_64__) || defined(__aarch64__)
  const auto mhz = measure_cpu_clock_mhz(0.002);
  ASSERT_TRUE(mhz.has_value());
  // Any core of the last twenty years: well above 200 MHz, below 7 GHz (sanitizer builds
  // do not instrument the inline assembly, so the rate holds there too).
  EXPECT_GT(*mhz, 200.0);
  EXPECT_LT(*mhz, 7000.0);
#else
  GTEST_SKIP() << "no dependent-addition chain for this instruction set";
#endif
}

}  // namespace
}  // namespace ironbench::device
