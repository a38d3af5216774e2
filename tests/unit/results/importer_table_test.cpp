#include "results/importer_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.hpp"
#include "import_fixtures.hpp"

namespace ironbench::results {
namespace {

// A file of each format and the benchmark its cases carry.
struct sample {
  std::string folder;
  std::string file;
  std::string benchmark;
};
const std::map<std::string, sample>& samples() {
  static const std::map<std::string, sample> s = {
      {"perftest", {"perftest", "write_a_gbits.txt", "ib_write_bw"}},
      {"vllm", {"vllm", "vllm_sweep_opt125m_c2.json", "serve"}},
      {"nccl-tests", {"nccl-tests", "all_reduce_perf_h100_16ranks.txt", "collectives"}},
      {"babelstream", {"babelstream", "main_omp_fp64.csv", "stream"}},
  };
  return s;
}

std::string usage_error_of(const import_request& request) {
  try {
    check_import_request(request);
  } catch (const usage_error& e) {
    return e.what();
  }
  return {};
}

TEST(ImporterTable, NamesHelpAndOptions) {
  EXPECT_EQ(importer_names(), "perftest, vllm, nccl-tests, babelstream");
  EXPECT_EQ(importer_help(),
            "perftest (ib_write_bw, ib_read_bw, ib_send_bw output), vllm (vllm bench serve --save-result JSON), "
            "nccl-tests (nccl-tests/rccl-tests output or -J JSON), babelstream (BabelStream --csv output)");
  EXPECT_EQ(collective_importer_names(), "nccl-tests");
  EXPECT_EQ(find_importer("perftest"), &importers().front());
  EXPECT_EQ(find_importer("csv"), nullptr);
}

TEST(ImporterTable, EveryRowDispatchesToItsParser) {
  ASSERT_EQ(importers().size(), samples().size());
  for (const auto& row : importers()) {
    const auto& s = samples().at(std::string(row.name));
    const auto cases = row.cases(testing::read_fixture_file(s.folder, s.file), s.file, import_options{});
    ASSERT_FALSE(cases.empty()) << row.name;
    for (const auto& c : cases) EXPECT_EQ(c.benchmark, s.benchmark) << row.name;
  }
}

TEST(ImporterTable, ImportReadsEveryFileAndNamesTheDevice) {
  const auto& s = samples().at("babelstream");
  const std::string path = std::string(IRONBENCH_TEST_DATA) + "/" + s.folder + "/" + s.file;
  import_request request;
  request.format = "babelstream";
  request.files = {path, path};
  request.device = "mi300x";
  const auto one = importers().back().cases(testing::read_fixture_file(s.folder, s.file), path, {});
  const auto cases = import_cases(request);
  ASSERT_EQ(cases.size(), 2 * one.size());
  for (const auto& c : cases) EXPECT_EQ(c.device, "mi300x");
  request.files = {std::string(IRONBENCH_TEST_DATA) + "/" + s.folder};
  EXPECT_THROW((void)import_cases(request), usage_error);
}

TEST(ImporterTable, ErrorsNameTheFormats) {
  EXPECT_EQ(usage_error_of({"csv", {}, {}, ""}),
            "unknown import format 'csv' (known: perftest, vllm, nccl-tests, babelstream)");
  EXPECT_EQ(usage_error_of({"vllm", {}, {"all_reduce", 0}, ""}),
            "--collective and --ranks apply to nccl-tests, not vllm");
  EXPECT_EQ(usage_error_of({"babelstream", {}, {"", 4}, ""}),
            "--collective and --ranks apply to nccl-tests, not babelstream");
  EXPECT_EQ(usage_error_of({"nccl-tests", {}, {"", -1}, ""}), "--ranks must be positive, not -1");
  EXPECT_EQ(usage_error_of({"nccl-tests", {}, {"all_reduce", 8}, ""}), "");
}

}  // namespace
}  // namespace ironbench::results
