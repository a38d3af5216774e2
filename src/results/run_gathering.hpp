// `ironbench results import`: runs written elsewhere (ironbench's own run JSON files, folders
// of them, other ironbench results databases) gathered into one store, each once: a run is
// known by its uuid (results/run_uuid.hpp), so importing it again, or from a second copy,
// adds nothing. (`ironbench import` is another thing: it turns other tools' outputs into new
// runs.)
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "results/results_store.hpp"

namespace ironbench::results {

/// One run found, with where it came from.
struct gathered_run {
  core::run_result run;   ///< with its uuid (the file's or row's, else derived)
  std::string source;     ///< "FILE" or "DB run N", for messages
  std::string json_path;  ///< the run's JSON file: the file read, or the source row's json_path
};

struct gathered_runs {
  std::vector<gathered_run> runs;
  /// Files in a folder that are JSON but not ironbench runs (a serve --save-result file, a
  /// recipe's data): skipped, and named in the summary.
  std::vector<std::string> skipped;
};

/// Reads every path before anything is stored: a run JSON file, a folder (every *.json file
/// under it, recursively, in name order), an ironbench results database (any file that
/// starts with SQLite's header), or a PostgreSQL store (a postgresql:// URL). Throws usage_error in one line naming the
/// file for a file named on the command line that is not an ironbench run, any file that is not valid JSON, a run of a
/// newer result schema than this build's, an SQLite file of another program, and a database of a newer schema.
[[nodiscard]] gathered_runs gather_runs(const std::vector<std::filesystem::path>& paths);

struct import_counts {
  std::size_t added = 0;
  std::size_t present = 0;  ///< a run with the same uuid was already in the store
};

/// Adds every gathered run to `store` unless its uuid is there (results_store::add): each run
/// in its own transaction, tags, host and environment as they were written.
import_counts import_runs(results_store& store, const gathered_runs& gathered);

}  // namespace ironbench::results
