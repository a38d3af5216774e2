#include "cli/run_outputs.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <filesystem>

#include "core/error.hpp"
#include "results/results_store.hpp"

namespace ironbench::cli {
namespace {

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

}  // namespace

void add_output_options(CLI::App& command, output_options& o) {
  command.add_option("--json", o.json_path, "Also write the run as JSON to PATH ('-' = stdout)");
  command.add_option("--csv", o.csv_path, "Also write one CSV row per case to PATH ('-' = stdout)");
  command.add_option("--md", o.markdown_path, "Also write Markdown tables to PATH ('-' = stdout)");
  command.add_option("--results-dir", o.results_dir, "Directory where every run is saved as JSON")->capture_default_str();
  command.add_option("--db", o.database, "Results database (default: $IRONBENCH_DB or ~/.local/share/ironbench/results.db)");
  command.add_option("--tag", o.tags, "Label the run KEY=VALUE, e.g. --tag env=vm --tag gpu=mi300x (repeatable)");
  command.add_flag("--no-save", o.no_save, "Neither save the run under --results-dir nor store it in the database");
}

std::vector<report::output_target> parse_targets(const output_options& o) {
  std::vector<report::output_target> targets;
  if (!o.json_path.empty()) targets.push_back({report::output_format::json, o.json_path});
  if (!o.csv_path.empty()) targets.push_back({report::output_format::csv, o.csv_path});
  if (!o.markdown_path.empty()) targets.push_back({report::output_format::markdown, o.markdown_path});
  std::size_t to_stdout = 0;
  for (const auto& t : targets) {
    report::check_output_target(t);
    to_stdout += t.path == "-" ? 1 : 0;
  }
  if (to_stdout > 1) throw usage_error("only one of --json, --csv, --md can write to standard output");
  return targets;
}

std::ostream& console_stream(const std::vector<report::output_target>& targets) {
  const bool stdout_taken =
      std::any_of(targets.begin(), targets.end(), [](const report::output_target& t) { return t.path == "-"; });
  return stdout_taken ? std::cerr : std::cout;
}

void prepare_results_dir(const output_options& o) {
  for (const auto& tag : o.tags) (void)results::parse_tag(tag, "--tag");
  if (o.no_save) return;
  { results::results_store check(results::database_path(o.database)); }
  std::error_code ec;
  std::filesystem::create_directories(o.results_dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create --results-dir {}: {}", o.results_dir, ec.message()));
}

std::string utc_time(std::chrono::system_clock::time_point t, const char* format) {
  return fmt::format(fmt::runtime(std::string("{:") + format + "}"),
                     fmt::gmtime(std::chrono::system_clock::to_time_t(t)));
}

void write_run_outputs(core::run_result run, const std::vector<report::output_target>& targets,
                       const output_options& options, const std::string& hostname,
                       std::chrono::system_clock::time_point start, std::ostream& out,
                       const std::function<void(std::ostream&)>& console) {
  // Write everything that can be written, then report the first failure.
  std::string write_failure;
  auto attempt = [&](const report::output_target& target) {
    try {
      report::write_output(run, target, out);
    } catch (const std::exception& e) {
      if (write_failure.empty()) write_failure = e.what();
    }
  };
  for (const auto& tag : options.tags) run.tags.insert(results::parse_tag(tag, "--tag"));
  for (const auto& t : targets) attempt(t);
  std::string saved, stored;
  if (!options.no_save) {
    saved = saved_run_path(options.results_dir, hostname, start).string();
    attempt({report::output_format::json, saved});
    try {
      results::results_store store(results::database_path(options.database));
      const auto id = store.save(run, write_failure.empty() ? std::filesystem::absolute(saved).string() : "");
      stored = fmt::format("stored: run {} in {}", id, store.path().string());
    } catch (const std::exception& e) {
      if (write_failure.empty()) write_failure = e.what();
    }
  }
  auto& stream = &console_stream(targets) == &std::cerr ? std::cerr : out;
  console(stream);
  if (!saved.empty() && write_failure.empty()) stream << "saved: " << saved << '\n';
  if (!stored.empty()) stream << stored << '\n';
  if (!write_failure.empty()) throw error(write_failure);
}

}  // namespace ironbench::cli
