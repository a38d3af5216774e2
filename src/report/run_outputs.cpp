#include "report/run_outputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "core/error.hpp"
#include "core/utc_time.hpp"
#include "results/results_store.hpp"
#include "results/run_uuid.hpp"

namespace ironbench::report {
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

std::vector<output_target> parse_targets(const output_options& o) {
  std::vector<output_target> targets;
  if (!o.json_path.empty()) targets.push_back({output_format::json, o.json_path});
  if (!o.csv_path.empty()) targets.push_back({output_format::csv, o.csv_path});
  if (!o.markdown_path.empty()) targets.push_back({output_format::markdown, o.markdown_path});
  std::size_t to_stdout = 0;
  for (const auto& t : targets) {
    check_output_target(t);
    to_stdout += t.path == "-" ? 1 : 0;
  }
  if (to_stdout > 1) throw usage_error("only one of --json, --csv, --md can write to standard output");
  // Two formats into one file: the second would silently replace the first.
  for (std::size_t i = 0; i < targets.size(); ++i) {
    for (std::size_t j = i + 1; j < targets.size(); ++j) {
      std::error_code ec;
      const bool same =
          targets[i].path == targets[j].path || (std::filesystem::exists(targets[i].path, ec) &&
                                                 std::filesystem::equivalent(targets[i].path, targets[j].path, ec));
      if (same && targets[i].path != "-") {
        throw usage_error(
            fmt::format("{} is named by two of --json, --csv, --md: give each its own file", targets[i].path));
      }
    }
  }
  return targets;
}

std::ostream& console_stream(const std::vector<output_target>& targets) {
  const bool stdout_taken =
      std::any_of(targets.begin(), targets.end(), [](const output_target& t) { return t.path == "-"; });
  return stdout_taken ? std::cerr : std::cout;
}

void prepare_results_dir(const output_options& o) {
  (void)results::parse_tags(o.tags, "--tag");
  if (o.no_save) return;
  { const results::results_store check(results::database_path(o.database), results::store_access::write); }
  std::error_code ec;
  std::filesystem::create_directories(o.results_dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create --results-dir {}: {}", o.results_dir, ec.message()));
}

void write_run_outputs(core::run_result run, const std::vector<output_target>& targets, const output_options& options,
                       const std::string& hostname, std::chrono::system_clock::time_point start, std::ostream& out,
                       const std::function<void(std::ostream&)>& console) {
  // Write everything that can be written, then report the first failure.
  std::string write_failure;
  auto attempt = [&](const output_target& target) {
    try {
      write_output(run, target, out);
    } catch (const std::exception& e) {
      if (write_failure.empty()) write_failure = e.what();
    }
  };
  for (auto& [key, value] : results::parse_tags(options.tags, "--tag")) run.tags[key] = std::move(value);
  if (run.uuid.empty()) run.uuid = results::new_run_uuid();  // one identity in every file and store
  for (const auto& t : targets) attempt(t);
  std::string saved, stored;
  if (!options.no_save) {
    saved = saved_run_path(options.results_dir, hostname, start).string();
    attempt({output_format::json, saved});
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
  write_findings_console(run, stream);
  if (!saved.empty() && write_failure.empty()) stream << "saved: " << saved << '\n';
  if (!stored.empty()) stream << stored << '\n';
  if (!write_failure.empty()) throw error(write_failure);
}

}  // namespace ironbench::report
