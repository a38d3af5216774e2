// Every format `ironbench import` reads, in one table: its name, its help text, the options that
// apply to it and the function that turns a file's text into cases. The import command's
// choices, help, errors and dispatch come from this table; adding a format is one
// results/X_import.{hpp,cpp} pair (the parser and its cases) and one row in importer_table.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"

namespace ironbench::results {

/// What the command line adds to a file's own content.
struct import_options {
  std::string collective;  ///< --collective: the test, when the output does not name it
  int ranks = 0;           ///< --ranks: the number of ranks, when the output lists none (0: not given)
};

/// One importable format: a row of the table.
struct importer {
  std::string_view name;            ///< the `format` argument: "perftest", "vllm", "nccl-tests", "babelstream"
  std::string_view help;            ///< what files it reads, for the `format` argument's help
  bool takes_collective_and_ranks;  ///< whether --collective and --ranks apply
  /// The largest file of this format that is read (docs/reliability.md, "Files read whole");
  /// a file is read whole by core::read_bounded_file, a pipe (`<(command)`) as well.
  std::uint64_t max_bytes;
  /// The cases of one file's text; `source` names the file in errors and notes. Throws
  /// usage_error when the text is not this format's output.
  std::vector<core::case_result> (*cases)(const std::string& text, const std::string& source,
                                          const import_options& options);
  /// Keys the file adds to the run's settings, or nullptr for none: nccl-tests' "stragglers"
  /// from per-process iteration times. Called with the same text as `cases`.
  json (*run_settings)(const std::string& text, const std::string& source) = nullptr;
};

/// The table, in the order the help lists the formats.
[[nodiscard]] const std::vector<importer>& importers();

/// The row named `name`, or nullptr.
[[nodiscard]] const importer* find_importer(std::string_view name);

/// "perftest, vllm, nccl-tests, babelstream": the names, for help and errors.
[[nodiscard]] std::string importer_names();

/// "perftest (ib_write_bw, ...), vllm (...), ...": every name with its help.
[[nodiscard]] std::string importer_help();

/// The names of the formats --collective and --ranks apply to ("nccl-tests").
[[nodiscard]] std::string collective_importer_names();

/// An import: a format, its files and the options that apply to it.
struct import_request {
  std::string format;
  std::vector<std::string> files;
  import_options options;
  std::string device;  ///< when not empty: the device of every case (replaces the imported one)
};

/// Throws usage_error for an unknown format ("unknown import format 'x' (known: ...)"),
/// --collective or --ranks given to a format they do not apply to, or negative ranks.
void check_import_request(const import_request& request);

/// The cases of every file, in order. Throws usage_error when a file cannot be read (missing,
/// not a regular file or pipe, larger than the format's max_bytes) or is not the format's output.
[[nodiscard]] std::vector<core::case_result> import_cases(const import_request& request);

/// An import's cases and the keys its files add to the run's settings (importer::run_settings).
struct imported_run {
  std::vector<core::case_result> cases;
  json settings = json::object();
};

/// As import_cases, with the files' run settings. A key that two files both give is left out,
/// and settings.<key>_note says so (two nccl-tests files' stragglers are two runs' reports:
/// import them one file at a time).
[[nodiscard]] imported_run import_run(const import_request& request);

}  // namespace ironbench::results
