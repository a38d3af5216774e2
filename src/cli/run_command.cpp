// ironbench run [BENCH...]: plan, measure, verify, report and save.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "benchmarks/builtin.hpp"
#include "cli/build_description.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/interrupt.hpp"
#include "cli/live_host.hpp"
#include "cli/progress_printer.hpp"
#include "core/error.hpp"
#include "core/result_json.hpp"
#include "core/runner.hpp"
#include "core/units.hpp"
#include "report/output.hpp"
#include "telemetry/case_telemetry.hpp"

namespace ironbench::cli {
namespace {

struct run_arguments {
  std::vector<std::string> benchmarks;
  std::string devices = "all";
  std::vector<std::string> axes;
  std::string json_path, csv_path, markdown_path;
  std::string results_dir = "ironbench-results";
  bool no_save = false;
  bool quiet = false;
  std::string warmup = "0.1s", min_time, max_time = "3s", min_sample_time = "100us";
  std::string min_reps = "5", max_reps = "1000", target_cv = "0.01";
  int telemetry_interval_ms = 50;
};

void add_options(CLI::App& command, run_arguments& a) {
  command.add_option("benchmarks", a.benchmarks, "Benchmarks to run (default: the quick suite; see `ironbench list`)");
  command.add_option("-d,--device", a.devices, "Devices: all, cpu, cuda, cuda:0, ... (comma-separated)")->capture_default_str();
  command.add_option("-a,--axis", a.axes,
                     "Override an axis: [BENCH:]NAME=VALUES, e.g. M=4096,8192 or size=1M:8G:x2 or N[pow2]=10:20");
  command.add_option("--json", a.json_path, "Also write the run as JSON to PATH ('-' = stdout)");
  command.add_option("--csv", a.csv_path, "Also write one CSV row per case to PATH ('-' = stdout)");
  command.add_option("--md", a.markdown_path, "Also write Markdown tables to PATH ('-' = stdout)");
  command.add_option("--results-dir", a.results_dir, "Directory where every run is saved as JSON")->capture_default_str();
  command.add_flag("--no-save", a.no_save, "Do not save the run under --results-dir");
  command.add_flag("-q,--quiet", a.quiet, "No progress lines");
  command.add_option("--warmup", a.warmup, "Warm-up time per case (e.g. 0.1s, 200ms)")->capture_default_str();
  command.add_option("--min-time", a.min_time,
                     "Measure each case at least this long (default 0.5s, or --max-time if shorter)");
  command.add_option("--max-time", a.max_time, "Stop measuring a case after this long")->capture_default_str();
  command.add_option("--min-reps", a.min_reps, "Fewest timed samples per case")->capture_default_str();
  command.add_option("--max-reps", a.max_reps, "Most timed samples per case")->capture_default_str();
  command.add_option("--target-cv", a.target_cv, "Stop once stddev/mean of the samples is at most this")->capture_default_str();
  command.add_option("--min-sample-time", a.min_sample_time, "Batch repetitions so one sample lasts at least this")->capture_default_str();
  command.add_option("--telemetry-interval", a.telemetry_interval_ms, "GPU sensor sampling interval during each case, in ms")
      ->capture_default_str()
      ->check(CLI::Range(5, 10000));
}

core::measurement_settings parse_settings(const run_arguments& a) {
  core::measurement_settings s;
  s.warmup_s = parse_duration_s(a.warmup, "--warmup");
  // Unless given, the minimum yields to a shorter --max-time: `--max-time 0.2s` alone works.
  s.min_time_s = a.min_time.empty() ? std::min(0.5, parse_duration_s(a.max_time, "--max-time"))
                                    : parse_duration_s(a.min_time, "--min-time");
  s.max_time_s = parse_duration_s(a.max_time, "--max-time");
  s.min_sample_s = parse_duration_s(a.min_sample_time, "--min-sample-time");
  const auto min_reps = parse_integer(a.min_reps, "--min-reps");
  const auto max_reps = parse_integer(a.max_reps, "--max-reps");
  if (min_reps < 1) throw usage_error("--min-reps must be at least 1");
  if (max_reps < min_reps) throw usage_error("--max-reps must be at least --min-reps");
  s.min_reps = static_cast<std::size_t>(min_reps);
  s.max_reps = static_cast<std::size_t>(max_reps);
  s.target_cv = parse_number(a.target_cv, "--target-cv");
  if (s.target_cv < 0) throw usage_error("--target-cv must not be negative");
  if (s.max_time_s < s.min_time_s) throw usage_error("--max-time must be at least --min-time");
  return s;
}

std::vector<report::output_target> parse_targets(const run_arguments& a) {
  std::vector<report::output_target> targets;
  if (!a.json_path.empty()) targets.push_back({report::output_format::json, a.json_path});
  if (!a.csv_path.empty()) targets.push_back({report::output_format::csv, a.csv_path});
  if (!a.markdown_path.empty()) targets.push_back({report::output_format::markdown, a.markdown_path});
  std::size_t to_stdout = 0;
  for (const auto& t : targets) {
    report::check_output_target(t);
    to_stdout += t.path == "-" ? 1 : 0;
  }
  if (to_stdout > 1) throw usage_error("only one of --json, --csv, --md can write to standard output");
  return targets;
}

std::string utc_time(std::chrono::system_clock::time_point t, const char* format) {
  return fmt::format(fmt::runtime(std::string("{:") + format + "}"),
                     fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

// Where the run is saved: <dir>/<UTC time>-<host>.json, never overwriting an earlier run.
std::filesystem::path saved_run_path(const std::string& dir, const std::string& host,
                                     std::chrono::system_clock::time_point start) {
  std::string safe_host;
  for (const char c : host) safe_host += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  const auto stem = fmt::format("{}-{}", utc_time(start, "%Y%m%dT%H%M%SZ"), safe_host.empty() ? "host" : safe_host);
  std::filesystem::path path = std::filesystem::path(dir) / (stem + ".json");
  for (int n = 2; std::filesystem::exists(path); ++n) {
    path = std::filesystem::path(dir) / fmt::format("{}-{}.json", stem, n);
  }
  return path;
}

int execute(const run_arguments& a, const invocation& call) {
  const auto settings = parse_settings(a);
  const auto targets = parse_targets(a);
  core::run_options options;
  options.benchmarks = a.benchmarks;
  options.settings = settings;
  for (const auto& text : a.axes) options.overrides.push_back(core::parse_axis_override(text));

  const auto host = detect_live_host();
  const auto devices = device::select_devices(host.devices, a.devices);
  core::registry registry;
  benchmarks::register_builtin_benchmarks(registry);
  const auto plan = core::plan_run(registry, devices, options);
  if (!a.no_save) {
    std::error_code ec;
    std::filesystem::create_directories(a.results_dir, ec);
    if (ec) throw usage_error(fmt::format("cannot create --results-dir {}: {}", a.results_dir, ec.message()));
  }

  core::run_result run;
  run.tool = build_description();
  run.argv = call.argv;
  const auto start = std::chrono::system_clock::now();
  run.start_time = utc_time(start, "%Y-%m-%dT%H:%M:%SZ");
  run.host = host_json(host.fingerprint);
  run.devices = devices;
  run.settings = core::to_json(settings);
  run.settings["device_notes"] = host.devices.notes;
  for (const auto& note : host.devices.notes) {
    if (!a.quiet) std::cerr << "note: " << note << '\n';
  }

  options.cancel = &install_interrupt_flag();
  options.monitor = telemetry::gpu_case_monitors(std::chrono::milliseconds(a.telemetry_interval_ms));
  core::execute_plan(plan, options, run, progress_printer(std::cerr, a.quiet));
  run.end_time = utc_time(std::chrono::system_clock::now(), "%Y-%m-%dT%H:%M:%SZ");

  // Write everything that can be written, then report the first failure.
  std::string write_failure;
  auto attempt = [&](const report::output_target& target) {
    try {
      report::write_output(run, target, std::cout);
    } catch (const std::exception& e) {
      if (write_failure.empty()) write_failure = e.what();
    }
  };
  bool console_to_stderr = false;
  for (const auto& t : targets) {
    attempt(t);
    console_to_stderr = console_to_stderr || t.path == "-";
  }
  std::string saved;
  if (!a.no_save) {
    saved = saved_run_path(a.results_dir, host.fingerprint.hostname, start).string();
    attempt({report::output_format::json, saved});
  }
  auto& console = console_to_stderr ? std::cerr : std::cout;
  report::write_console(run, console);
  if (!saved.empty() && write_failure.empty()) console << "saved: " << saved << '\n';
  if (!write_failure.empty()) throw error(write_failure);
  if (run.status == core::run_status::interrupted) return exit_interrupted;
  return run.status == core::run_status::valid ? exit_ok : exit_failure;
}

}  // namespace

command_action add_run_command(CLI::App& app, const invocation& call) {
  auto* command = app.add_subcommand("run", "Run benchmarks (default: the quick suite on every device found)");
  auto arguments = std::make_shared<run_arguments>();
  add_options(*command, *arguments);
  return [arguments, &call] { return execute(*arguments, call); };
}

}  // namespace ironbench::cli
