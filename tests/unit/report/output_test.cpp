#include "report/output.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "report/case_tables.hpp"
#include "temp_dir.hpp"

namespace ironbench::report {
namespace {

core::run_result sample_run() {
  core::run_result run;
  run.tool = json{{"version", "0.1.0"}, {"git", "abc"}};
  run.argv = {"ironbench", "run"};
  run.host = json{{"hostname", "node,1"}, {"cpu", {{"model_name", "Test CPU"}, {"physical_cores", 2}}}};
  run.devices.push_back({"cpu", core::device_kind::cpu, 0, "Test CPU", 0, json::object()});
  core::case_result c;
  c.benchmark = "stream";
  c.device = "cpu";
  c.params.set("size", std::int64_t{1} << 27);
  c.params.set("kernel", std::string("triad"));
  c.param_units["size"] = "B";
  core::measurement m;
  m.samples_s = {0.002, 0.002};
  m.time_s = core::summarize(m.samples_s);
  c.timing = m;
  c.metrics = {{"bandwidth", 201.3, "GB/s", ""}, {"bandwidth_best", 202.0, "GB/s", ""}};
  run.cases.push_back(c);
  core::case_result bad = c;
  bad.status = core::case_status::invalid;
  bad.reason = "wrong result: element 3, \"quoted\"";
  run.cases.push_back(bad);
  core::settle_run_status(run);
  return run;
}

TEST(Csv, OneRowPerCaseWithEscaping) {
  std::ostringstream out;
  write_csv(sample_run(), out);
  std::istringstream lines(out.str());
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header.rfind("benchmark,device,status,reason,size,kernel,time_median_s", 0), 0u) << header;
  EXPECT_NE(header.find("bandwidth (GB/s)"), std::string::npos);
  EXPECT_NE(header.find("bandwidth_best (GB/s)"), std::string::npos);
  EXPECT_EQ(first.rfind("stream,cpu,valid,,134217728,triad,0.002,", 0), 0u) << first;
  EXPECT_NE(second.find("\"wrong result: element 3, \"\"quoted\"\"\""), std::string::npos) << second;
}

TEST(Tables, HeadlineMetricsAndSizeLabels) {
  const auto tables = case_tables(sample_run());
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].title, "stream on cpu");
  std::ostringstream out;
  tables[0].table.render_text(out);
  const auto text = out.str();
  EXPECT_NE(text.find("128M"), std::string::npos) << text;
  EXPECT_NE(text.find("bandwidth (GB/s)"), std::string::npos);
  EXPECT_EQ(text.find("bandwidth_best"), std::string::npos);  // JSON/CSV only
  EXPECT_NE(text.find("201.3"), std::string::npos);
  EXPECT_NE(text.find("INVALID: wrong result"), std::string::npos);
}

TEST(Markdown, TablesEscapePipes) {
  auto run = sample_run();
  run.cases[1].reason = "a|b";
  std::ostringstream out;
  write_markdown(run, out);
  const auto text = out.str();
  EXPECT_NE(text.find("## stream on cpu"), std::string::npos);
  EXPECT_NE(text.find("| --- |"), std::string::npos);
  EXPECT_NE(text.find("a\\|b"), std::string::npos);
  EXPECT_NE(text.find("Run invalid: 1 valid, 1 invalid"), std::string::npos) << text;
}

TEST(Console, HeaderTablesAndVerdict) {
  std::ostringstream out;
  write_console(sample_run(), out);
  const auto text = out.str();
  EXPECT_NE(text.find("Test CPU (2 cores)"), std::string::npos) << text;
  EXPECT_NE(text.find("run invalid: 1 valid, 1 invalid, 0 skipped, 0 failed"), std::string::npos) << text;
}

TEST(Console, AnUnstableCaseIsMarkedInTheTableTheListAndTheCounts) {
  auto run = sample_run();
  run.cases[0].unstable = core::instability{6.79, 0.85, 0.5, 12, core::host_load{48, 0}};
  std::ostringstream console, markdown, csv;
  write_console(run, console);
  EXPECT_NE(console.str().find("valid, UNSTABLE (robust CV 85 %)"), std::string::npos) << console.str();
  EXPECT_NE(console.str().find("stream on cpu size=134217728 kernel=triad: robust CV 85 % (CV 679 %) over 12 samples "
                               "(unstable above 50 %); other processes used 48 % of the host's CPUs"),
            std::string::npos)
      << console.str();
  EXPECT_NE(console.str().find("run invalid: 1 valid, 1 invalid, 0 skipped, 0 failed; 1 of the valid unstable"),
            std::string::npos)
      << console.str();
  write_markdown(run, markdown);
  EXPECT_NE(markdown.str().find("- stream on cpu"), std::string::npos) << markdown.str();
  write_csv(run, csv);
  EXPECT_NE(csv.str().find("stream,cpu,valid,unstable: robust CV 85 %"), std::string::npos) << csv.str();
  run.cases[0].unstable.reset();
  std::ostringstream steady;
  write_console(run, steady);
  EXPECT_EQ(steady.str().find("nstable"), std::string::npos) << steady.str();
}

TEST(Outputs, FilesAreWrittenWholeAndPathsChecked) {
  const testing::temp_dir dir("ironbench_output_");
  const auto path = (dir / "run.json").string();
  std::ostringstream unused;
  write_output(sample_run(), {output_format::json, path}, unused);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_EQ(core::read_run_file(path).cases.size(), 2u);
  EXPECT_THROW(check_output_target({output_format::csv, (dir / "missing" / "x.csv").string()}), usage_error);
  EXPECT_THROW(check_output_target({output_format::csv, dir.str()}), usage_error);
  EXPECT_NO_THROW(check_output_target({output_format::csv, "-"}));
}

}  // namespace
}  // namespace ironbench::report
