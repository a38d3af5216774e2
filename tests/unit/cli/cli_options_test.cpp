// Option parsing and validation of the ironbench commands whose options are stable (list,
// sysinfo, run, import, compare, results, report, serve-sim): good command lines parse, bad
// values are refused with exit code 2 and a message naming the problem. Commands are only run
// where they refuse their options before doing any work.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_runner.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "temp_dir.hpp"

namespace ironbench::cli {
namespace {

/// What parsing (and, when asked, running) a command line gave.
struct outcome {
  std::optional<int> stop;  ///< parse_command_line's exit code, nullopt when the command would run
  int exit_code = -1;       ///< the exit code (stop, or the action's when it ran)
  std::string err;          ///< what was written to std::cerr
  std::string command;      ///< the subcommand that parsed
};

/// std::cerr into a string for the lifetime of the object.
class capture_cerr {
 public:
  capture_cerr() : saved_(std::cerr.rdbuf(text_.rdbuf())) {}
  ~capture_cerr() { std::cerr.rdbuf(saved_); }
  capture_cerr(const capture_cerr&) = delete;
  capture_cerr& operator=(const capture_cerr&) = delete;
  [[nodiscard]] std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* saved_;
};

/// Parses `args` (without the program name) as main() does, with the stable commands; runs the
/// parsed command when `run` is set.
outcome parse(std::vector<std::string> args, bool run = false) {
  args.insert(args.begin(), "ironbench");
  invocation call{args};
  CLI::App app{"ironbench", "ironbench"};
  app.require_subcommand(1);
  std::map<std::string, command_action> actions{
      {"list", add_list_command(app)},           {"sysinfo", add_sysinfo_command(app)},
      {"run", add_run_command(app, call)},       {"import", add_import_command(app, call)},
      {"serve-sim", add_serve_sim_command(app)}, {"results", add_results_command(app)},
      {"compare", add_compare_command(app)},     {"report", add_report_command(app)},
  };
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  outcome o;
  const capture_cerr cerr;
  o.stop = parse_command_line(app, static_cast<int>(argv.size()), argv.data(), "ironbench --help");
  if (!app.get_subcommands().empty()) o.command = app.get_subcommands().front()->get_name();
  if (o.stop) {
    o.exit_code = *o.stop;
  } else if (run) {
    o.exit_code = run_reporting_errors(actions.at(o.command));
  }
  o.err = cerr.text();
  return o;
}

/// Expects `args` to parse into `command` with nothing printed.
void expect_parses(const std::vector<std::string>& args, const std::string& command) {
  const auto o = parse(args);
  EXPECT_FALSE(o.stop.has_value()) << o.err;
  EXPECT_EQ(o.command, command);
  EXPECT_EQ(o.err, "");
}

/// Expects `args` to be refused with exit code 2 and a message holding `message`; `run` runs
/// the command (for checks made once the command line parsed).
void expect_refused(const std::vector<std::string>& args, const std::string& message, bool run = false) {
  const auto o = parse(args, run);
  EXPECT_EQ(o.exit_code, exit_usage) << o.err;
  EXPECT_NE(o.err.find("ironbench: error: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
}

TEST(CliOptions, UnknownOptionsAndMissingCommandsAreUsageErrors) {
  expect_refused({}, "A subcommand is required");
  expect_refused({"run", "--no-such-option"}, "--no-such-option");
  expect_refused({"list", "extra"}, "extra");
}

TEST(CliOptions, ListAndSysinfo) {
  expect_parses({"list"}, "list");
  expect_parses({"sysinfo"}, "sysinfo");
  expect_parses({"sysinfo", "--json"}, "sysinfo");
  expect_refused({"sysinfo", "--json=maybe"}, "maybe");
}

TEST(CliOptions, RunParsesItsOptions) {
  expect_parses({"run"}, "run");
  expect_parses({"run", "gemm", "stream", "-d", "cpu", "-a", "M=4096,8192", "--axis", "size=1M:8G:x2"}, "run");
  expect_parses({"run", "--warmup", "200ms", "--min-time", "0.1s", "--max-time", "1s", "--min-sample-time", "1ms"},
                "run");
  expect_parses({"run", "--min-reps", "3", "--max-reps", "10", "--target-cv", "0.05", "--telemetry-interval", "100"},
                "run");
  expect_parses({"run", "-q", "--json", "out.json", "--no-save", "--tag", "k=v"}, "run");
}

TEST(CliOptions, RunRefusesBadValues) {
  expect_refused({"run", "--telemetry-interval", "1"}, "--telemetry-interval");
  expect_refused({"run", "--telemetry-interval", "often"}, "--telemetry-interval");
  expect_refused({"run", "--min-reps", "0", "--no-save"}, "--min-reps must be at least 1", true);
  expect_refused({"run", "--min-reps", "5", "--max-reps", "2", "--no-save"}, "--max-reps must be at least --min-reps",
                 true);
  expect_refused({"run", "--target-cv", "-1", "--no-save"}, "--target-cv must not be negative", true);
  expect_refused({"run", "--min-time", "2s", "--max-time", "1s", "--no-save"}, "--max-time must be at least --min-time",
                 true);
  expect_refused({"run", "--warmup", "soon", "--no-save"}, "--warmup", true);
}

TEST(CliOptions, ImportParsesAndRefuses) {
  expect_parses({"import", "nccl-tests", "a.log", "b.log", "--collective", "all_reduce", "--ranks", "8"}, "import");
  expect_parses({"import", "perftest", "x.txt", "--device", "mlx5_0"}, "import");
  expect_refused({"import"}, "format is required");
  expect_refused({"import", "perftest"}, "files is required");
  expect_refused({"import", "nccl-tests", "a.log", "--ranks", "eight"}, "--ranks");
  expect_refused({"import", "excel", "a.log", "--no-save"}, "unknown import format 'excel'", true);
  expect_refused({"import", "vllm", "a.json", "--ranks", "2", "--no-save"},
                 "--collective and --ranks apply to nccl-tests, not vllm", true);
  expect_refused({"import", "nccl-tests", "a.log", "--ranks", "-2", "--no-save"}, "--ranks must be positive", true);
}

TEST(CliOptions, CompareParsesAndRefuses) {
  const testing::temp_dir dir("ironbench_cli_options_");
  const auto db = (dir / "results.db").string();
  expect_parses({"compare", "1", "2", "--format", "markdown", "--alpha", "0.01", "--confidence", "0.9"}, "compare");
  expect_parses({"compare", "1", "2", "--min-difference", "2%", "--per-device", "--ignore-param", "dtype"}, "compare");
  expect_parses({"compare", "1", "2", "--align-on", "provider", "--fail-on-slower", "--db", db}, "compare");
  expect_refused({"compare", "1"}, "sides");
  expect_refused({"compare", "1", "2", "--format", "pdf"}, "pdf");
  expect_refused({"compare", "1", "2", "--alpha", "0.9"}, "--alpha");
  expect_refused({"compare", "1", "2", "--confidence", "0.1"}, "--confidence");
  expect_refused({"compare", "1", "2", "--min-difference", "lots", "--db", db},
                 "--min-difference 'lots' is not a fraction", true);
  expect_refused({"compare", "1", "2", "--min-difference", "1.5", "--db", db}, "--min-difference '1.5'", true);
}

TEST(CliOptions, ResultsSubcommands) {
  expect_parses({"results", "list", "--benchmark", "gemm", "--tag", "a=b", "--limit", "3", "--format", "markdown"},
                "results");
  expect_parses({"results", "show", "1", "2", "--format", "json"}, "results");
  expect_parses({"results", "export", "1", "-o", "-"}, "results");
  expect_parses({"results", "delete", "4"}, "results");
  expect_parses({"results", "baselines"}, "results");
  expect_refused({"results"}, "subcommand");
  expect_refused({"results", "list", "--format", "json"}, "json");
  expect_refused({"results", "list", "--limit", "many"}, "--limit");
  expect_refused({"results", "show"}, "ids is required");
  expect_refused({"results", "delete"}, "ids is required");
}

// `results gather` and `results import`, its former name (kept for scripts), parse alike.
TEST(CliOptions, ResultsGatherAndItsFormerName) {
  expect_parses({"results", "gather", "saved", "node-b.db", "--db", "shared.db"}, "results");
  expect_parses({"results", "import", "saved", "node-b.db", "--db", "shared.db"}, "results");
  expect_refused({"results", "gather"}, "sources is required");
  expect_refused({"results", "import"}, "sources is required");
}

TEST(CliOptions, ReportParsesAndRefuses) {
  expect_parses({"report", "1", "ref:mi350x-training", "-o", "r.html", "--title", "T", "--per-device"}, "report");
  expect_refused({"report"}, "report needs RUN", true);
  expect_refused({"report", "1", "--per-device=sometimes"}, "sometimes");
}

TEST(CliOptions, MinDifferenceIsAFractionOrAPercentage) {
  EXPECT_DOUBLE_EQ(parse_min_difference("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_min_difference("2%"), 0.02);
  EXPECT_DOUBLE_EQ(parse_min_difference("0"), 0.0);
  for (const char* bad : {"1", "150%", "-0.1", "nan", "2x", ""}) {
    EXPECT_THROW((void)parse_min_difference(bad), usage_error) << bad;
  }
}

TEST(CliOptions, ServeSimParsesAndRefuses) {
  expect_parses({"serve-sim", "--port", "0", "--model", "m", "--prefill-tokens-per-s", "5000"}, "serve-sim");
  expect_parses({"serve-sim", "--decode-base-ms", "2", "--decode-per-seq-ms", "0.1", "--max-num-seqs", "8"},
                "serve-sim");
  expect_parses({"serve-sim", "--kv-cache-tokens", "4096", "--jitter", "0", "--seed", "3"}, "serve-sim");
  expect_parses({"serve-sim", "--fault", "http-429", "--fault-every", "5", "--batch-writes"}, "serve-sim");
  expect_refused({"serve-sim", "--port", "70000"}, "--port");
  expect_refused({"serve-sim", "--max-num-seqs", "several"}, "--max-num-seqs");
  expect_refused({"serve-sim", "--max-num-seqs", "0"}, "--max-num-seqs >= 1", true);
  expect_refused({"serve-sim", "--jitter", "-0.5"}, "--jitter >= 0", true);
  expect_refused({"serve-sim", "--fault", "http-500"}, "--fault needs --fault-every", true);
  expect_refused({"serve-sim", "--fault", "explode", "--fault-every", "2"}, "explode", true);
}

}  // namespace
}  // namespace ironbench::cli
