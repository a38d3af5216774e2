// ironbench validate on a stand-in H200 node: three stand-in GPUs (IRONBENCH_STAND_IN_GPUS,
// device/stand_in_gpus.hpp) read through a stand-in NVML (tests/fakes/fake_nvml.c) that answers
// at the stand-ins' PCI bus ids with an H200's readings under GEMM (power at its 700 W default
// limit, the SM clock moving over 1240-1700 MHz, held back by sw_power_cap). At validate's
// default rules, a healthy node PASSes at quick, standard and burn-in; a GPU at half its rate, a
// lowered power limit, uncorrected ECC errors rising during the run and an XID each FAIL the
// node, naming the faulty GPU and the check, while the other GPUs' checks pass. Each verdict is
// taken three times: stand-ins measure modelled times, so the machine's load cannot move it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

constexpr int repeats = 3;

// The stand-ins' PCI bus ids (device::stand_in_pci_bus_id), written out: the stand-in NVML
// knows only these, so a stand-in at another id would read no telemetry and fail the tests.
const char* const bus_ids[] = {"00FF:00:00.0", "00FF:01:00.0", "00FF:02:00.0"};
const char* const gpus[] = {"cuda:0", "cuda:1", "cuda:2"};

const std::vector<const char*> fault_variables = {"FAKE_NVML_FAULTY_GPU", "FAKE_NVML_POWER_LIMIT_MW",
                                                  "FAKE_NVML_ECC_UNCORRECTED_STEP", "FAKE_NVML_XIDS"};

// Three stand-in H200s and the stand-in NVML, with `faults` (FAKE_NVML_* values) on `faulty`
// (a bus id) only, for the processes started while it lives.
class stand_in_node {
 public:
  explicit stand_in_node(const std::string& spec = "3", const std::map<std::string, std::string>& faults = {},
                         const std::string& faulty = "") {
    setenv("IRONBENCH_STAND_IN_GPUS", spec.c_str(), 1);
    setenv("IRONBENCH_STAND_IN_TIME_SCALE", "0.002", 1);
    setenv("IRONBENCH_NVML_LIBRARY", IRONBENCH_FAKE_NVML, 1);
    setenv("FAKE_NVML_PROFILE", "h200-gemm", 1);
    setenv("FAKE_NVML_BUS_IDS", "00FF:00:00.0,00FF:01:00.0,00FF:02:00.0", 1);
    if (!faulty.empty()) setenv("FAKE_NVML_FAULTY_GPU", faulty.c_str(), 1);
    for (const auto& [name, value] : faults) setenv(name.c_str(), value.c_str(), 1);
  }
  ~stand_in_node() {
    for (const char* name : {"IRONBENCH_STAND_IN_GPUS", "IRONBENCH_STAND_IN_TIME_SCALE", "IRONBENCH_NVML_LIBRARY",
                             "FAKE_NVML_PROFILE", "FAKE_NVML_BUS_IDS"}) {
      unsetenv(name);
    }
    for (const char* name : fault_variables) unsetenv(name);
  }
  stand_in_node(const stand_in_node&) = delete;
  stand_in_node& operator=(const stand_in_node&) = delete;
  stand_in_node(stand_in_node&&) = delete;
  stand_in_node& operator=(stand_in_node&&) = delete;
};

// One validation of the stand-in GPUs at `level`, at validate's defaults (a burn-in of 20 s
// at the default 10-s interval: its stand-ins sleep 0.002 of that).
struct validation {
  process_result process;
  json run;
  json report;  ///< settings.validation
};

validation validate_gpus(const std::string& level) {
  temp_dir dir;
  const auto path = (dir.path() / "run.json").string();
  std::vector<std::string> args{"validate", "--level", level, "--device", "cuda", "--no-save", "--json", path, "-q"};
  if (level == "burn-in") {
    args.emplace_back("--duration");
    args.emplace_back("20s");
  }
  validation v;
  v.process = run_ironbench(args);
  v.run = json::parse(read_file(path));
  v.report = v.run.at("settings").at("validation");
  return v;
}

std::vector<json> rows_on(const json& report, const std::string& device) {
  std::vector<json> out;
  for (const auto& c : report.at("checks")) {
    if (c.at("device") == device) out.push_back(c);
  }
  return out;
}

const json& row_named(const json& report, const std::string& check, const std::string& device) {
  for (const auto& c : report.at("checks")) {
    if (c.at("check") == check && c.at("device") == device) return c;
  }
  static const json none = json::object();
  ADD_FAILURE() << "no check '" << check << "' on '" << device << "' in " << report.at("checks").dump(1);
  return none;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// The GPU GEMM rows of `device` that were measured (not skipped).
std::vector<json> gemm_rows(const json& report, const std::string& device) {
  std::vector<json> out;
  for (const auto& c : rows_on(report, device)) {
    if (starts_with(c.at("check").get<std::string>(), "gemm ") && c.at("verdict") != "SKIP") out.push_back(c);
  }
  return out;
}

// Every check of `device` PASSes or is skipped.
void expect_healthy(const json& report, const std::string& device) {
  const auto rows = rows_on(report, device);
  EXPECT_FALSE(rows.empty()) << device;
  for (const auto& c : rows) EXPECT_TRUE(c.at("verdict") == "PASS" || c.at("verdict") == "SKIP") << c.dump();
}

// A FAIL that comes only from checks on `device`, each named in the summary line.
void expect_fails_only(const validation& v, const std::string& device) {
  EXPECT_EQ(v.process.exit_code, 2) << v.process.out << v.process.err;
  EXPECT_EQ(v.report.at("verdict"), "FAIL");
  const auto& deciding = v.report.at("decided_by");
  ASSERT_FALSE(deciding.empty());
  for (const auto& name : deciding) {
    const auto text = name.get<std::string>();
    EXPECT_NE(text.find(" on " + device), std::string::npos) << text;
    if (deciding.size() <= 8) {
      EXPECT_NE(v.process.out.find(text), std::string::npos) << v.process.out;
    }
  }
  EXPECT_NE(v.process.out.find("FAIL from "), std::string::npos) << v.process.out;
  for (const char* gpu : gpus) {
    if (gpu != device) expect_healthy(v.report, gpu);
  }
}

// The evidence of a healthy H200's GEMM row: "SM 1414 MHz (max 1980), 696 W of 700 W limit",
// the clock within 1240-1700 MHz and the power within 6 W under the limit.
void expect_h200_evidence(const json& row, double limit_w) {
  static const std::regex pattern(R"(SM (\d+) MHz \(max 1980\), (\d+) W of (\d+) W limit)");
  const auto evidence = row.value("evidence", "");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(evidence, m, pattern)) << row.dump();
  const double scale = limit_w / 700;
  EXPECT_GE(std::stod(m[1]), 1240 * scale - 1) << evidence;
  EXPECT_LE(std::stod(m[1]), 1700 * scale + 1) << evidence;
  EXPECT_GE(std::stod(m[2]), limit_w - 6) << evidence;
  EXPECT_LE(std::stod(m[2]), limit_w) << evidence;
  EXPECT_EQ(std::stod(m[3]), limit_w) << evidence;
}

// Whether `report`'s verdict comes only from the load of the machine running the test: the
// hypervisor's steal or the cgroup's throttling over the run (findings on "all" of the host, a
// WARN on this shared VM now and then: one stolen tick in a 0.2-s run is 2.5 % on two cores).
// They are this VM's, measured, not the stand-in node's.
bool only_this_hosts_load(const json& report) {
  for (const auto& name : report.at("decided_by")) {
    if (name != "doctor: steal" && name != "doctor: cgroup_throttling") return false;
  }
  return report.at("verdict") == "WARN";
}

TEST(ValidateStandIn, AHealthyH200NodePassesAtEveryLevelWithItsClockAndPowerAsEvidence) {
  const stand_in_node node;
  for (const char* level : {"quick", "standard", "burn-in"}) {
    for (int i = 0; i < repeats; ++i) {
      SCOPED_TRACE(std::string(level) + " #" + std::to_string(i + 1));
      const auto v = validate_gpus(level);
      if (only_this_hosts_load(v.report)) {
        EXPECT_EQ(v.process.exit_code, 1);
        std::cout << level << ": WARN from this machine's load only: " << v.report.at("decided_by").dump() << '\n';
      } else {
        EXPECT_EQ(v.process.exit_code, 0) << v.process.out << v.process.err;
        EXPECT_EQ(v.report.at("verdict"), "PASS") << v.process.out;
        EXPECT_TRUE(v.report.at("decided_by").empty());
        EXPECT_NE(v.process.out.find("validation " + std::string(level) + ": PASS (exit code 0)"), std::string::npos)
            << v.process.out;
      }
      for (const char* gpu : gpus) {
        expect_healthy(v.report, gpu);
        const auto gemm = gemm_rows(v.report, gpu);
        ASSERT_FALSE(gemm.empty()) << gpu;
        int judged = 0;
        for (const auto& row : gemm) {
          expect_h200_evidence(row, 700);
          if (row.contains("expected")) ++judged;  // bf16, fp16 and fp8 have the H200's expected values
        }
        EXPECT_GE(judged, 2) << gpu;
        EXPECT_EQ(row_named(v.report, "stream triad fp64 1 GiB", gpu).at("verdict"), "PASS");
      }
      // The GPUs were power capped at their default limit: evidence, not a finding.
      int capped = 0;
      for (const auto& c : v.run.at("cases")) {
        const auto& reasons = c.value("telemetry", json::object()).value("throttle_reasons", json::array());
        for (const auto& r : reasons) capped += r == "sw_power_cap" ? 1 : 0;
      }
      EXPECT_GT(capped, 0);
      for (const char* check : {"doctor: gpu_clocks", "doctor: power_limit", "doctor: hardware_errors"}) {
        EXPECT_EQ(row_named(v.report, check, "").at("verdict"), "PASS") << check;
      }
      if (std::string(level) == "burn-in") {
        EXPECT_GE(v.report.at("burn_in").at("intervals_measured").get<int>(), 2);
        for (const char* gpu : gpus) {
          EXPECT_EQ(row_named(v.report, "burn-in hardware errors", gpu).at("verdict"), "PASS");
          EXPECT_EQ(row_named(v.report, "burn-in stream triad fp64 1 GiB", gpu).at("verdict"), "PASS");
        }
      }
    }
  }
}

TEST(ValidateStandIn, AGpuAtHalfItsRateFailsItsOwnChecksOnly) {
  const stand_in_node node("3,cuda:1=slow:0.5");
  for (int i = 0; i < repeats; ++i) {
    SCOPED_TRACE("#" + std::to_string(i + 1));
    const auto v = validate_gpus("quick");
    expect_fails_only(v, "cuda:1");
    const auto slow = gemm_rows(v.report, "cuda:1");
    ASSERT_FALSE(slow.empty());
    for (const auto& row : slow) {
      const auto& healthy = row_named(v.report, row.at("check").get<std::string>(), "cuda:0");
      // Half the healthy GPU's rate, as the stand-in was told.
      EXPECT_NEAR(row.at("measured").get<double>() / healthy.at("measured").get<double>(), 0.5, 0.01) << row.dump();
      if (!row.contains("expected")) continue;
      EXPECT_EQ(row.at("verdict"), "FAIL") << row.dump();
      EXPECT_LT(row.at("ratio").get<double>(), 0.55) << row.dump();
      EXPECT_NE(v.process.out.find(row.at("check").get<std::string>() + " on cuda:1"), std::string::npos);
    }
    EXPECT_EQ(row_named(v.report, "stream triad fp64 1 GiB", "cuda:1").at("verdict"), "FAIL");
  }
}

TEST(ValidateStandIn, ALoweredPowerLimitFailsThatGpuAndIsNamed) {
  const stand_in_node node("3", {{"FAKE_NVML_POWER_LIMIT_MW", "500000"}}, bus_ids[1]);
  for (int i = 0; i < repeats; ++i) {
    SCOPED_TRACE("#" + std::to_string(i + 1));
    const auto v = validate_gpus("quick");
    expect_fails_only(v, "cuda:1");
    const auto& power = row_named(v.report, "doctor: power_limit", "cuda:1");
    EXPECT_EQ(power.at("verdict"), "FAIL");
    const auto rule = power.value("rule", "");
    EXPECT_NE(rule.find("cuda:1's power limit is 500 W, below its default 700 W"), std::string::npos) << rule;
    EXPECT_NE(rule.find("affects gemm on cuda:1, stream on cuda:1"), std::string::npos) << rule;
    for (const auto& row : gemm_rows(v.report, "cuda:1")) expect_h200_evidence(row, 500);
    for (const auto& row : gemm_rows(v.report, "cuda:0")) expect_h200_evidence(row, 700);
  }
}

TEST(ValidateStandIn, UncorrectedEccErrorsRisingDuringTheRunFailThatGpu) {
  const stand_in_node node("3", {{"FAKE_NVML_ECC_UNCORRECTED_STEP", "1"}}, bus_ids[1]);
  for (const char* level : {"quick", "burn-in"}) {
    for (int i = 0; i < repeats; ++i) {
      SCOPED_TRACE(std::string(level) + " #" + std::to_string(i + 1));
      const auto v = validate_gpus(level);
      expect_fails_only(v, "cuda:1");
      const auto& rose = row_named(v.report, "doctor: hardware_errors", "cuda:1");
      EXPECT_EQ(rose.at("verdict"), "FAIL");
      EXPECT_NE(rose.value("rule", "").find("cuda:1: uncorrected errors during the run"), std::string::npos)
          << rose.dump();
      if (std::string(level) == "burn-in") {
        const auto& burn = row_named(v.report, "burn-in hardware errors", "cuda:1");
        EXPECT_EQ(burn.at("verdict"), "FAIL");
        EXPECT_NE(burn.value("rule", "").find("uncorrected error(s): FAIL"), std::string::npos) << burn.dump();
      }
    }
  }
}

TEST(ValidateStandIn, AnXidFailsThatGpu) {
  const stand_in_node node("3", {{"FAKE_NVML_XIDS", "79"}}, bus_ids[2]);
  for (int i = 0; i < repeats; ++i) {
    SCOPED_TRACE("#" + std::to_string(i + 1));
    const auto v = validate_gpus("quick");
    expect_fails_only(v, "cuda:2");
    const auto& xid = row_named(v.report, "doctor: hardware_errors", "cuda:2");
    EXPECT_EQ(xid.at("verdict"), "FAIL");
    EXPECT_NE(xid.value("rule", "").find("cuda:2: hardware XID events during the run"), std::string::npos)
        << xid.dump();
  }
}

}  // namespace
}  // namespace ironbench::testing
