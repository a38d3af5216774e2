#include "benchmarks/stream_kernels.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "benchmarks/stream.hpp"

namespace ironbench::benchmarks {
namespace {

constexpr stream_kernel all_kernels[] = {stream_kernel::copy,  stream_kernel::mul, stream_kernel::add,
                                         stream_kernel::triad, stream_kernel::dot, stream_kernel::nstream};

template <typename T>
struct arrays {
  std::size_t n;
  std::vector<T> a, b, c;
  explicit arrays(std::size_t count) : n(count), a(count), b(count), c(count) {
    stream_initialize(a.data(), b.data(), c.data(), n);
  }
  double run(stream_kernel k, std::size_t times) {
    double result = 0;
    for (std::size_t i = 0; i < times; ++i) result = stream_run(k, a.data(), b.data(), c.data(), n);
    return result;
  }
  stream_check_result check(stream_kernel k, std::size_t times, double dot) const {
    return stream_check(k, a.data(), b.data(), c.data(), n, times, dot);
  }
};

template <typename T>
class StreamKernels : public ::testing::Test {};
using element_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(StreamKernels, element_types);

TYPED_TEST(StreamKernels, EveryKernelPassesItsAnalyticCheck) {
  for (const auto kernel : all_kernels) {
    arrays<TypeParam> x(100003);
    const double dot = x.run(kernel, 7);
    const auto result = x.check(kernel, 7, dot);
    EXPECT_TRUE(result.ok) << to_string(kernel) << ": " << result.detail;
  }
}

TYPED_TEST(StreamKernels, WrongOperationsAreCaught) {
  const std::size_t n = 4099;
  const TypeParam s = TypeParam(stream_scalar);
  {  // add implemented as c = a + a
    arrays<TypeParam> x(n);
    for (std::size_t i = 0; i < n; ++i) x.c[i] = x.a[i] + x.a[i];
    EXPECT_FALSE(x.check(stream_kernel::add, 1, 0).ok);
  }
  {  // triad with the wrong scalar
    arrays<TypeParam> x(n);
    for (std::size_t i = 0; i < n; ++i) x.a[i] = x.b[i] + TypeParam(0.5) * x.c[i];
    EXPECT_FALSE(x.check(stream_kernel::triad, 1, 0).ok);
  }
  {  // copy reading a neighbour (an indexing bug): position-dependent data catches it
    arrays<TypeParam> x(n);
    for (std::size_t i = 0; i + 1 < n; ++i) x.c[i] = x.a[i + 1];
    x.c[n - 1] = x.a[n - 1];
    EXPECT_FALSE(x.check(stream_kernel::copy, 1, 0).ok);
  }
  {  // copy that stops one element short
    arrays<TypeParam> x(n);
    for (std::size_t i = 0; i + 1 < n; ++i) x.c[i] = x.a[i];
    EXPECT_FALSE(x.check(stream_kernel::copy, 1, 0).ok);
  }
  {  // mul that also overwrote its input
    arrays<TypeParam> x(n);
    for (std::size_t i = 0; i < n; ++i) x.b[i] = x.c[i] = s * x.c[i];
    EXPECT_FALSE(x.check(stream_kernel::mul, 1, 0).ok);
  }
  {  // nstream run one time fewer than counted
    arrays<TypeParam> x(n);
    x.run(stream_kernel::nstream, 4);
    EXPECT_FALSE(x.check(stream_kernel::nstream, 5, 0).ok);
    EXPECT_TRUE(x.check(stream_kernel::nstream, 4, 0).ok);
  }
  {  // dot that missed an element
    arrays<TypeParam> x(n);
    const double dot = x.run(stream_kernel::dot, 1) - double(x.a[7]) * double(x.b[7]);
    EXPECT_FALSE(x.check(stream_kernel::dot, 1, dot).ok);
  }
}

TEST(StreamKernels, FailureNamesTheElement) {
  arrays<double> x(100);
  x.run(stream_kernel::copy, 1);
  x.c[42] = -1;
  const auto result = x.check(stream_kernel::copy, 1, 0);
  ASSERT_FALSE(result.ok);
  EXPECT_EQ(result.detail.rfind("element 42:", 0), 0u) << result.detail;
}

TEST(StreamKernels, InitialValuesAreNotPeriodicPerPage) {
  // 512 doubles per 4 KiB page: neighbouring pages must differ.
  bool differs = false;
  for (std::size_t i = 0; i < 512 && !differs; ++i) {
    differs = stream_initial_a<double>(i) != stream_initial_a<double>(i + 512);
  }
  EXPECT_TRUE(differs);
}

TEST(StreamTraffic, BabelStreamWeights) {
  const int expected[] = {2, 2, 3, 3, 2, 4};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto t = traffic_of(all_kernels[i]);
    EXPECT_EQ(t.arrays_read + t.arrays_written, expected[i]) << to_string(all_kernels[i]);
  }
  EXPECT_EQ(traffic_of(stream_kernel::dot).arrays_written, 0);
}

TEST(StreamKernels, NamesRoundTrip) {
  for (const auto k : all_kernels) EXPECT_EQ(stream_kernel_from_string(to_string(k)), k);
  EXPECT_FALSE(stream_kernel_from_string("scale").has_value());
}

TEST(StreamDefaults, FourTimesTheLastLevelCache) {
  EXPECT_EQ(default_stream_array_bytes(32 << 20), std::int64_t{128} << 20);
  EXPECT_EQ(default_stream_array_bytes(std::int64_t{256} << 20), std::int64_t{1} << 30);  // MI300X-like
  EXPECT_EQ(default_stream_array_bytes(96 << 20), std::int64_t{512} << 20);               // 384 MiB -> next pow2
  EXPECT_EQ(default_stream_array_bytes(0), std::int64_t{64} << 20);
}

}  // namespace
}  // namespace ironbench::benchmarks
