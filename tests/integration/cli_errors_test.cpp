// Bad input to the real binary: a one-line error on stderr and exit code 2, nothing run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "process.hpp"

namespace ironbench::testing {
namespace {

void expect_usage_error(const std::vector<std::string>& args, const std::string& expected_text) {
  const auto r = run_ironbench(args);
  std::string command;
  for (const auto& a : args) command += a + ' ';
  EXPECT_EQ(r.exit_code, 2) << command << "\nstderr: " << r.err;
  const auto lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 1u) << command << "\nstderr: " << r.err;
  EXPECT_EQ(lines[0].rfind("ironbench: error: ", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(expected_text), std::string::npos) << command << "\nstderr: " << lines[0];
  EXPECT_EQ(r.out, "") << command;
}

TEST(CliErrors, UnknownFlagsAndCommands) {
  expect_usage_error({"run", "--bogus"}, "--bogus");
  expect_usage_error({"sysinfo", "--yaml"}, "--yaml");
  expect_usage_error({"frobnicate"},
                     "unknown command 'frobnicate' (commands: collectives, compare, doctor, experiment, import, list, "
                     "report, results, "
                     "run, serve, serve-sim, sysinfo, tp-infer, train, trend, validate, version)");
  expect_usage_error({}, "subcommand");
}

TEST(CliErrors, MalformedAxisValues) {
  expect_usage_error({"run", "stream", "--axis", "size=1M:8Q"}, "8Q");
  expect_usage_error({"run", "stream", "--axis", "size"}, "NAME=VALUES");
  expect_usage_error({"run", "stream", "--axis", "size=8M:1M"}, "above its end");
  expect_usage_error({"run", "stream", "--axis", "kernel=scale"}, "not one of");
  expect_usage_error({"run", "stream", "--axis", "nosuch=1"}, "no selected benchmark has an axis 'nosuch'");
  expect_usage_error({"run", "stream", "--axis", "gemm:M=4"}, "not selected");
  expect_usage_error({"run", "gemm", "--axis", "M=1,2", "--axis", "N=1,2,3"}, "advance together");
}

TEST(CliErrors, ImpossibleSizes) {
  expect_usage_error({"run", "stream", "--axis", "size=64T"}, "size=64T kernel=copy on cpu needs 192 TiB");
  expect_usage_error({"run", "gemm", "--axis", "M=4000000"}, "of memory but the device has");
  expect_usage_error({"run", "stream", "--axis", "size=99999999999999P"}, "out of range");
  expect_usage_error({"run", "stream", "--axis", "size=4"}, "at least one element");
  expect_usage_error({"run", "gemm", "--axis", "M=0"}, "M must be positive");
  // Sizes whose bytes overflow 64 bits are refused before anything runs, not wrapped to a small
  // number that passes the memory check and fails each case.
  expect_usage_error({"run", "gemm", "--device", "cpu", "--axis", "M=3037000500"},
                     "needs more bytes of memory than 64 bits can count");
  expect_usage_error({"run", "stream", "--device", "cpu", "--axis", "size=6148914691236517208"},
                     "needs more bytes of memory than 64 bits can count");
  expect_usage_error({"run", "gemm", "--axis", "M=8", "--axis", "N=8", "--axis", "K=-5"}, "K must be positive");
}

TEST(CliErrors, UnknownBenchmarkAndDevice) {
  expect_usage_error({"run", "nbody"}, "unknown benchmark 'nbody' (known: stream, gemm, copy, p2p)");
  expect_usage_error({"run", "--device", "cuda:7"}, "no device 'cuda:7'");
}

TEST(CliErrors, BadSettingsAndPaths) {
  expect_usage_error({"run", "--min-reps", "0"}, "--min-reps");
  expect_usage_error({"run", "--max-time", "soon"}, "--max-time");
  expect_usage_error({"run", "--min-time", "5s", "--max-time", "1s"}, "--max-time");
  expect_usage_error({"run", "--json", "/nonexistent/dir/run.json"}, "does not exist");
  expect_usage_error({"run", "--json", "-", "--csv", "-"}, "standard output");
  // One file for two formats, and a directory where a file is written: refused before anything runs.
  expect_usage_error({"run", "--json", "/tmp/ironbench-one-file.json", "--csv", "/tmp/ironbench-one-file.json"},
                     "/tmp/ironbench-one-file.json is named by two of --json, --csv, --md");
  expect_usage_error({"report", "ref:h100-gemm-cited", "-o", "/tmp"}, "/tmp is a directory: give a file name");
}

TEST(CliHelp, EverySubcommandHasHelp) {
  for (const auto& args : {std::vector<std::string>{"--help"},
                           {"list", "--help"},
                           {"sysinfo", "--help"},
                           {"run", "--help"},
                           {"version", "--help"}}) {
    const auto r = run_ironbench(args);
    EXPECT_EQ(r.exit_code, 0) << args[0];
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
  }
  const auto run_help = run_ironbench({"run", "--help"});
  for (const char* flag : {"--axis", "--device", "--json", "--csv", "--md", "--results-dir", "--target-cv"}) {
    EXPECT_NE(run_help.out.find(flag), std::string::npos) << flag;
  }
}

TEST(CliErrors, ExperimentRecipesThatCannotRunNameFileLineAndColumn) {
  const temp_dir dir("ironbench-recipe");
  const auto recipe = dir.str() + "/r.yaml";
  std::ofstream(recipe) << "schema_version: 1\nname: x\nsteps:\n  - command: {command: 'echo ${who}', metrics: "
                           "[{performance: true}]}\n";
  expect_usage_error({"experiment", "plan", recipe}, recipe + ":4:24: undefined variable 'who'");
  expect_usage_error({"experiment", "plan", recipe, "--set", "who"}, "--set takes VAR=VALUE, not 'who'");
  expect_usage_error({"experiment", "plan", dir.str() + "/none.yaml"},
                     "cannot read recipe '" + dir.str() + "/none.yaml'");
  // With the variable set, the plan shows the command as it will run.
  std::ofstream(recipe) << "schema_version: 1\nname: x\nvariables: {who: world}\nsteps:\n  - command: {command: "
                           "'echo ${who}', metrics: [{performance: true}]}\n";
  const auto r = run_ironbench({"experiment", "plan", recipe});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  command      echo world\n"), std::string::npos) << r.out;
}

// Every file ironbench reads whole goes through one bounded reader: a device, a FIFO nobody
// writes or a directory is refused at once with the reason, a file past its kind's limit too.
TEST(CliErrors, FilesReadWholeAreRegularFilesWithinTheirKindsLimit) {
  const temp_dir dir("ironbench-bounded");
  const auto fifo = dir.str() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto big = dir.str() + "/big.yaml";
  std::filesystem::resize_file(dir.write("big.yaml", "schema_version: 1\n"), 2 * 1024 * 1024);  // sparse
  expect_usage_error({"experiment", "plan", "/dev/zero"},
                     "cannot read recipe '/dev/zero': it is a character device, not a regular file");
  expect_usage_error(
      {"experiment", "plan", fifo},
      "cannot read recipe '" + fifo + "': it is a named pipe (FIFO); a recipe is read from a regular file");
  expect_usage_error({"experiment", "plan", dir.str()}, "cannot read recipe '" + dir.str() + "': it is a directory");
  expect_usage_error({"experiment", "run", "/dev/zero", "--dry-run"}, "cannot read recipe '/dev/zero'");
  expect_usage_error({"experiment", "plan", big},
                     "cannot read recipe '" + big + "': it holds more than the 1 MiB a recipe may be");
  for (const char* format : {"perftest", "nccl-tests", "vllm", "babelstream"}) {
    expect_usage_error({"import", format, "/dev/zero", "--no-save"},
                       std::string("cannot read ") + format + " output '/dev/zero': it is a character device");
    expect_usage_error({"import", format, dir.str(), "--no-save"}, "it is a directory");
  }
  const std::string tokenizer = std::string(IRONBENCH_TOKENIZER_FIXTURES) + "/gpt2.tokenizer.json";
  const std::vector<std::string> serve = {"serve", "--base-url", "http://127.0.0.1:9", "--model", "m"};
  auto with = [&](std::vector<std::string> more) {
    auto args = serve;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  expect_usage_error(with({"--tokenizer", "/dev/zero"}), "cannot read tokenizer '/dev/zero': it is a character device");
  expect_usage_error(with({"--tokenizer", fifo}), "cannot read tokenizer '" + fifo + "': it is a named pipe");
  expect_usage_error(
      with({"--endpoint", "/v1/chat/completions", "--tokenizer", tokenizer, "--chat-template", "/dev/zero"}),
      "cannot read chat template '/dev/zero': it is a character device");
  expect_usage_error(with({"--endpoint", "/v1/chat/completions", "--tokenizer", tokenizer, "--chat-template", fifo}),
                     "cannot read chat template '" + fifo + "': it is a named pipe");
}

}  // namespace
}  // namespace ironbench::testing

namespace ironbench::testing {
namespace {

// Standard output that cannot take the data (a full disk: /dev/full) loses it: exit 1 and one
// line saying so, never exit 0 (the run, report and comparison would be gone silently).
TEST(CliErrors, AFailedWriteToStandardOutputIsAnError) {
  const std::string binary = ironbench_binary();
  for (const std::string command :
       {"version", "list", "results baselines", "results list", "doctor --window 0",
        "compare ref:h100-gemm-cited ref:h200-gemm-cited", "report ref:h100-gemm-cited -o -",
        "run stream --device cpu --axis size=1M --axis kernel=copy --min-time 0 --max-time 0.05s --no-save --json -"}) {
    const auto full = run_program("sh", {"-c", binary + " " + command + " > /dev/full"});
    EXPECT_EQ(full.exit_code, 1) << command << "\nstderr: " << full.err;
    EXPECT_NE(full.err.find("ironbench: error: writing to standard output failed"), std::string::npos)
        << command << "\nstderr: " << full.err;
    const auto fine = run_program("sh", {"-c", binary + " " + command + " > /dev/null"});
    EXPECT_EQ(fine.exit_code, 0) << command << "\nstderr: " << fine.err;
  }
}

}  // namespace
}  // namespace ironbench::testing
