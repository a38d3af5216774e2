// `ironbench results gather`: runs written elsewhere (ironbench's own run JSON files, folders
// of them, other ironbench results databases) gathered into one store, each once: a run is
// known by its uuid (results/run_uuid.hpp), so importing it again, or from a second copy,
// adds nothing. (`ironbench import` is another thing: it turns other tools' outputs into new
// runs.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
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

/// A run file is read whole up to this size (docs/reliability.md, "Files read whole"); one run
/// is held in memory at a time, so an import's memory is that of its largest run.
inline constexpr std::uint64_t max_run_file_bytes = 1024ULL * 1024ULL * 1024ULL;

/// What a walk over the sources meets, handed over as it is met.
struct gathering_visitor {
  /// A run, read from its source; it is stored (or dropped) before the next one is read.
  std::function<void(gathered_run&&)> run;
  /// A JSON file in a folder that is not an ironbench run.
  std::function<void(const std::string& path)> skipped;
  /// An entry of a folder that is no file to read (a symbolic link loop or one that leads
  /// nowhere, a FIFO, a socket, a device): "PATH: why", passed over.
  std::function<void(const std::string& note)> passed_over;
  /// A source, or a file of a folder, that cannot be imported: one line naming it (the
  /// usage_error's text). The walk goes on with the next one.
  std::function<void(const std::string& message)> refused;
};

/// Walks `paths` in order: a run JSON file, a folder (every *.json file under it, recursively,
/// in name order; symbolic links to files followed, to folders not), an ironbench results
/// database (a regular file that starts with SQLite's header), or a PostgreSQL store (a
/// postgresql:// URL), each run handed to the visitor as soon as it is read. Refused, in one
/// line naming the file or database: anything that is not a regular file (a FIFO is refused at
/// once, never opened), a file over max_run_file_bytes, one named on the command line that is
/// not an ironbench run, any file that is not valid JSON, a run of a newer result schema than
/// this build's, a run whose tags or argv are not what ironbench writes (tags: an object of
/// KEY: VALUE, parse_tag's rules; argv: a list of strings), an SQLite file of another program,
/// a database of a newer schema or a damaged one.
void gather_runs(const std::vector<std::filesystem::path>& paths, const gathering_visitor& visit);

/// Every run of `paths` read before anything is stored (gather_runs above): throws the first
/// refusal as a usage_error; folder entries passed over are left out.
[[nodiscard]] gathered_runs gather_runs(const std::vector<std::filesystem::path>& paths);

struct import_counts {
  std::size_t added = 0;
  std::size_t present = 0;  ///< a run with the same uuid was already in the store
};

/// Adds every gathered run to `store` unless its uuid is there (results_store::add): each run
/// in its own transaction, tags, host and environment as they were written.
import_counts import_runs(results_store& store, const gathered_runs& gathered);

/// What import_sources did.
struct import_summary {
  import_counts counts;
  std::vector<std::string> skipped;      ///< JSON files that are not ironbench runs
  std::vector<std::string> passed_over;  ///< folder entries that are no file to read, "PATH: why"
  std::vector<std::string> refused;      ///< one line each, naming the source or file
};

/// `ironbench results gather`: walks `paths` (gather_runs) and stores each run as soon as it is
/// read, so that a folder of many large runs costs the memory of one. `store` opens the target
/// on the first run to store (a refused source alone creates nothing); `on_refused` is told of
/// each refusal as it happens.
import_summary import_sources(const std::vector<std::filesystem::path>& paths,
                              const std::function<results_store&()>& store,
                              const std::function<void(const std::string&)>& on_refused = {});

}  // namespace ironbench::results
