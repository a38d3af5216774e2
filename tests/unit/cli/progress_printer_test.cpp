// The progress lines: one at a time as before, device-first where devices run side by side,
// and one line per device redrawn in place on a terminal.
#include "cli/progress_printer.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace ironbench::cli {
namespace {

struct named final : core::benchmark {
  std::string name() const override { return "gemm"; }
  std::string summary() const override { return ""; }
  std::string unsupported_reason(const core::device_info&) const override { return {}; }
  std::vector<core::axis> axes(const core::device_info&) const override { return {}; }
  void run(core::case_state&) const override {}
};

struct printer_fixture : ::testing::Test {
  named bench;
  std::vector<core::device_progress> devices;
  std::vector<core::planned_case> cases;

  printer_fixture() {
    for (const char* id : {"cuda:0", "cuda:1", "cuda:10"}) {
      core::device_progress d;
      d.device = id;
      d.total = 26;
      devices.push_back(d);
      core::planned_case p;
      p.bench = &bench;
      p.device = std::make_shared<core::device_info>(core::device_info{id, core::device_kind::cuda, 0, "", 0, {}});
      p.params.set("dtype", std::string("bf16"));
      cases.push_back(std::move(p));
    }
  }

  core::progress_event event(core::progress_event::kind what, std::size_t device, const core::case_result* result,
                             bool side_by_side) {
    return core::progress_event{what, device, 78, 3, cases[device], result, 95, side_by_side, device, devices};
  }
};

core::case_result valid_case(double tflops) {
  core::case_result r;
  r.metrics.push_back({"tflops", tflops, "TFLOP/s", ""});
  return r;
}

TEST_F(printer_fixture, OneAtATimeAsBeforeWithTheTimeLeft) {
  std::ostringstream out;
  const auto print = progress_printer(out, progress_style::lines);
  print(event(core::progress_event::kind::started, 0, nullptr, false));
  const auto result = valid_case(687.2);
  print(event(core::progress_event::kind::finished, 0, &result, false));
  EXPECT_EQ(out.str(), "[ 4/78] gemm on cuda:0 dtype=bf16 ... 687.2 TFLOP/s valid, about 1 min 35 s left\n");
}

TEST_F(printer_fixture, SideBySideEachLineNamesItsDeviceAndItsTimeLeft) {
  std::ostringstream out;
  const auto print = progress_printer(out, progress_style::lines);
  devices[1].done = 3;
  devices[1].eta_s = 41;
  print(event(core::progress_event::kind::started, 1, nullptr, true));
  EXPECT_EQ(out.str(), "");  // nothing until a case ends: lines of several devices would interleave
  const auto result = valid_case(687.2);
  print(event(core::progress_event::kind::finished, 1, &result, true));
  EXPECT_EQ(out.str(), "[cuda:1   3/26] gemm dtype=bf16: 687.2 TFLOP/s valid (cuda:1: 41 s left)\n");
  devices[2].lost = true;
  core::case_result hung;
  hung.status = core::case_status::failed;
  hung.reason = "no result within the case's time limit of 1 min: cuda:10 hung";
  out.str("");
  print(event(core::progress_event::kind::finished, 2, &hung, true));
  EXPECT_NE(out.str().find("[cuda:10  0/26] gemm dtype=bf16: FAILED: no result within"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("(cuda:10: lost, its cases left are not run)"), std::string::npos) << out.str();
}

TEST_F(printer_fixture, LiveRedrawsOneLinePerDevice) {
  std::ostringstream out;
  const auto print = progress_printer(out, progress_style::live);
  devices[0].current = "gemm dtype=bf16";
  devices[0].eta_s = 61;
  devices[1].done = 26;
  print(event(core::progress_event::kind::started, 0, nullptr, true));
  const auto first = out.str();
  EXPECT_NE(first.find("cuda:0  [ 0/26] gemm dtype=bf16"), std::string::npos) << first;
  EXPECT_NE(first.find("1 min 1 s left"), std::string::npos) << first;
  EXPECT_NE(first.find("cuda:1  [26/26] finished"), std::string::npos) << first;
  EXPECT_NE(first.find("cuda:10 [ 0/26] waiting"), std::string::npos) << first;
  EXPECT_NE(first.find("3 of 78 cases, 1 min 35 s left"), std::string::npos) << first;
  EXPECT_EQ(first.find("\x1b[1A"), std::string::npos);  // nothing drawn yet to go back over
  out.str("");
  core::case_result wrong = valid_case(1);
  wrong.status = core::case_status::invalid;
  wrong.reason = "wrong result";
  print(event(core::progress_event::kind::finished, 0, &wrong, true));
  const auto second = out.str();
  EXPECT_EQ(second.rfind("\x1b[1A\r\x1b[2K\x1b[1A\r\x1b[2K\x1b[1A\r\x1b[2K\x1b[1A\r\x1b[2K", 0), 0u);  // 4 lines erased
  EXPECT_NE(second.find("INVALID: wrong result"), std::string::npos);  // kept above the block
}

TEST_F(printer_fixture, QuietPrintsNothing) { EXPECT_FALSE(progress_printer(std::cout, true)); }

}  // namespace
}  // namespace ironbench::cli
