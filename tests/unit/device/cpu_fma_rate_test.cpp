#include "device/cpu/cpu_fma_rate.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include "core/device_info.hpp"
#include "device/cpu/cpu_clock.hpp"
#include "device/cpu/cpu_device.hpp"

namespace ironbench::device {
namespace {

TEST(CpuFmaRate, MeasuresNoMoreThanTheCoresCanDo) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512f") && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    GTEST_SKIP() << "neither AVX-512 nor AVX2 with FMA";
  }
  const auto rate = measure_cpu_fma_rate(0.002);
  ASSERT_TRUE(rate.has_value());
  EXPECT_EQ(rate->threads, omp_get_max_threads());
  EXPECT_EQ(rate->instructions, __builtin_cpu_supports("avx512f") ? "AVX-512" : "AVX2+FMA");
  // Upper bound: two FMA units of the widest vectors at the measured clock (+25 % for a clock
  // that rose between the two measurements). A loaded machine may give less, never more.
  const auto mhz = measure_cpu_clock_mhz(0.002);
  ASSERT_TRUE(mhz.has_value());
  const double lanes = rate->instructions == "AVX-512" ? 8 : 4;
  const double most = rate->threads * *mhz * 1e6 * 2 /* units */ * lanes * 2 /* FLOP per FMA */;
  EXPECT_GT(rate->fp64_flops_per_second, 0);
  EXPECT_LT(rate->fp64_flops_per_second, most * 1.25) << rate->describe();
  EXPECT_NE(rate->describe().find("threads at once"), std::string::npos);
#else
  GTEST_SKIP() << "the FMA rate is measured on x86-64 only";
#endif
}

TEST(CpuFmaRate, TheCpuDeviceRecordsItForFp64AndFp32) {
#if defined(__x86_64__)
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  add_measured_cpu_flops(cpu);
  if (!cpu.properties.contains("measured_flops")) GTEST_SKIP() << "no FMA rate on this CPU";
  const auto& m = cpu.properties["measured_flops"];
  const double fp64 = m["fp64"]["flops_per_second"].get<double>();
  EXPECT_GT(fp64, 0);
  EXPECT_DOUBLE_EQ(m["fp32"]["flops_per_second"].get<double>(), 2 * fp64);
  EXPECT_NE(m["fp64"]["source"].get<std::string>().find("measured"), std::string::npos);
#else
  GTEST_SKIP() << "the FMA rate is measured on x86-64 only";
#endif
}

}  // namespace
}  // namespace ironbench::device
