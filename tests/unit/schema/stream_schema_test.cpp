// The STREAM names and weights of schema/stream.hpp are what both the stream benchmark
// (measuring) and the BabelStream importer (importing) count bytes with.
#include "schema/stream.hpp"

#include <gtest/gtest.h>

#include <string>

#include "benchmarks/stream_kernels.hpp"
#include "results/babelstream_import.hpp"

namespace ironbench::schema {
namespace {

TEST(StreamSchema, KernelsAndWeights) {
  EXPECT_EQ(stream_kernel_names(), (std::vector<std::string>{"copy", "mul", "add", "triad", "dot", "nstream"}));
  const int weights[] = {2, 2, 3, 3, 2, 4};
  for (std::size_t i = 0; i < stream_kernels.size(); ++i) {
    EXPECT_EQ(stream_kernels[i].arrays_read + stream_kernels[i].arrays_written, weights[i]) << stream_kernels[i].name;
  }
  EXPECT_FALSE(find_stream_kernel("scale").has_value());
  EXPECT_EQ(stream_dtype_names(), (std::vector<std::string>{"fp64", "fp32"}));
  EXPECT_EQ(stream_dtype_of_size(8), "fp64");
  EXPECT_EQ(stream_dtype_of_size(4), "fp32");
  EXPECT_FALSE(stream_dtype_of_size(2).has_value());
  EXPECT_EQ(stream_dtype_bytes("fp32"), 4);
}

TEST(StreamSchema, TheBenchmarkMeasuresWithTheSchema) {
  for (const auto& k : stream_kernels) {
    const auto kernel = benchmarks::stream_kernel_from_string(std::string(k.name));
    ASSERT_TRUE(kernel.has_value()) << k.name;
    EXPECT_EQ(benchmarks::to_string(*kernel), k.name);
    EXPECT_EQ(benchmarks::traffic_of(*kernel).arrays_read, k.arrays_read);
    EXPECT_EQ(benchmarks::traffic_of(*kernel).arrays_written, k.arrays_written);
  }
}

TEST(StreamSchema, TheImporterCountsTheSchemasBytes) {
  results::babelstream_report report;
  report.format = "csv";
  for (const auto& k : stream_kernels) {
    results::babelstream_row row;
    row.function = std::string(k.name);
    row.function[0] = static_cast<char>(row.function[0] - 'a' + 'A');  // BabelStream prints "Copy"
    row.num_times = 10;
    row.elements = 1000;
    row.element_bytes = 4;
    row.unit = "MB";
    row.avg_runtime_s = 1.0;
    report.rows.push_back(row);
  }
  const auto cases = results::babelstream_cases(report, "test.csv");
  ASSERT_EQ(cases.size(), stream_kernels.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& k = stream_kernels[i];
    EXPECT_EQ(cases[i].params.string("kernel"), k.name);
    EXPECT_EQ(cases[i].params.string("dtype"), "fp32");
    EXPECT_DOUBLE_EQ(cases[i].work.bytes_read, k.arrays_read * 4000.0) << k.name;
    EXPECT_DOUBLE_EQ(cases[i].work.bytes_written, k.arrays_written * 4000.0) << k.name;
  }
}

}  // namespace
}  // namespace ironbench::schema
