// Where a run's results go, shared by every workload that measures: the --json/--csv/--md
// targets, the saved copy under --results-dir, the results database, and the console.
#pragma once

#include <chrono>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "report/output.hpp"

namespace ironbench::report {

struct output_options {
  std::string json_path, csv_path, markdown_path;
  std::string results_dir = "ironbench-results";
  std::string database;           ///< --db; empty = results::default_database_path()
  std::vector<std::string> tags;  ///< --tag KEY=VALUE, as given
  bool no_save = false;           ///< neither the saved JSON copy nor the database
};

/// The requested targets, checked (writable, at most one on stdout) before anything runs.
[[nodiscard]] std::vector<output_target> parse_targets(const output_options& options);

/// Where human-readable output goes: stderr when a target writes to stdout, else stdout.
[[nodiscard]] std::ostream& console_stream(const std::vector<output_target>& targets);

/// Before anything is measured: creates --results-dir and opens (creating or migrating) the
/// results database unless --no-save, and checks every --tag. Usage error when one cannot.
void prepare_results_dir(const output_options& options);

/// Writes every target, the saved copy and the database row (the run carries the --tag
/// labels), then the console report (to stderr when a target writes to stdout) through
/// `console`, "saved: PATH" and "stored: run ID in DB". Throws the first write failure after
/// writing everything else.
void write_run_outputs(core::run_result run, const std::vector<output_target>& targets, const output_options& options,
                       const std::string& hostname, std::chrono::system_clock::time_point start, std::ostream& out,
                       const std::function<void(std::ostream&)>& console);

}  // namespace ironbench::report
