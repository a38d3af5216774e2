// Output formats of a run and where they go. Several at once: `--json f --csv g --md -`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace ironbench::report {

enum class output_format { console, json, csv, markdown };

/// A format and a destination path; "-" is standard output.
struct output_target {
  output_format format = output_format::console;
  std::string path = "-";
};

void write_console(const core::run_result& run, std::ostream& out);

/// The doctor's findings of `run` (doctor/finding.hpp), after its tables; nothing when it has none.
void write_findings_console(const core::run_result& run, std::ostream& out);
void write_json(const core::run_result& run, std::ostream& out);
void write_csv(const core::run_result& run, std::ostream& out);
void write_markdown(const core::run_result& run, std::ostream& out);
void write_report(const core::run_result& run, output_format format, std::ostream& out);

/// Throws usage_error when `target` cannot be written (its directory is missing, or the path
/// is a directory: core/output_file.hpp). Called before a run starts.
void check_output_target(const output_target& target);

/// Writes `run` to its file: a regular file through a temporary file and a rename, so a reader
/// never sees half a file; a device, FIFO or socket in place; a symbolic link followed
/// (core/output_file.hpp). "-" writes to `standard_output`. Throws ironbench::error on I/O failure.
void write_output(const core::run_result& run, const output_target& target, std::ostream& standard_output);

}  // namespace ironbench::report
