// The results store: every run saved in one database, so runs can be listed, filtered by
// benchmark, tag, host and date, exported and compared long after their JSON files moved. The
// database is an SQLite file (the default) or a PostgreSQL server that many nodes write to
// (--db postgresql://…, results/store_location.hpp); each kind is a back end
// (results/store_backend.hpp) with the same tables and the same guarantees.
//
// Layout (schema version 2; SQLite keeps the version in `PRAGMA user_version`, PostgreSQL in
// the table ironbench_schema(application, version); opening an older database for writing
// migrates it in one transaction, reading leaves it as it is, a newer one is refused):
//   runs(id, start_time, end_time, host, command, status, case_count, json_path, document,
//        saved_at, uuid)   document is the whole run as JSON (docs/results-format.md); uuid
//        its identity across stores (results/run_uuid.hpp), unique
//   run_tags(run_id, key, value)
//   cases(run_id, case_index, benchmark, device, params, status, metrics)   one row per case,
//        params and metrics as JSON text, for people who query the database with SQL
// Every save is one transaction, so a process killed (or a server connection lost) while
// saving leaves the earlier runs intact and nothing of the run, and several processes may save
// at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "results/store_location.hpp"

namespace ironbench::results {

/// Schema version written by this build.
inline constexpr int store_schema_version = 2;

/// Which runs to list. Empty fields match everything.
struct run_filter {
  std::string benchmark;                    ///< runs with at least one case of this benchmark
  std::map<std::string, std::string> tags;  ///< runs carrying every one of these tags
  std::string host;                         ///< host name, exact
  std::string since;                        ///< start_time >= this (ISO 8601 date or date-time, UTC)
  std::string until;                        ///< start_time < this; a bare date means the end of that day
  std::size_t limit = 0;                    ///< newest first; 0 = all
};

/// One stored run, without its cases.
struct stored_run {
  std::int64_t id = 0;
  std::string uuid;  ///< the run's identity across stores (results/run_uuid.hpp)
  std::string start_time, end_time, host, command, status, json_path, saved_at;
  std::size_t case_count = 0;
  std::vector<std::string> benchmarks;  ///< distinct, in case order
  std::map<std::string, std::string> tags;
};

class store_backend;

/// What results_store::add() did.
struct added_run {
  std::int64_t id = 0;  ///< the run's id in this store
  bool added = false;   ///< false: a run with its uuid was already there
};

/// What a results_store is opened for.
enum class store_access {
  /// Reading (list, show, compare, report): an SQLite file is opened read-only
  /// (SQLITE_OPEN_READONLY) and never created, migrated or otherwise written, so a database the
  /// user may only read can be listed; a PostgreSQL database gets no tables. A path with no
  /// database (a server database without ironbench's tables) reads as one without runs. save()
  /// and remove() reopen it for writing first.
  read,
  /// Writing now: the database (and its folder) is created when absent and an older schema
  /// migrated, so that a run can check up front that it will be able to save.
  write,
};

class results_store {
 public:
  /// Opens the database at `location` (a file path, or a postgresql:// URL) for `access`.
  /// Throws usage_error when it is not an ironbench database or is newer than this build, when
  /// the server cannot be reached (and, for writing, when it cannot be created).
  explicit results_store(const store_location& location, store_access access = store_access::read);
  ~results_store();
  results_store(const results_store&) = delete;
  results_store& operator=(const results_store&) = delete;

  /// Saves `run` (with run.tags) in one transaction and returns its id. `json_path` is the
  /// file the run was also written to ("" when none). A run without a uuid is stored with a
  /// new one; a run whose uuid is already stored is a usage_error.
  std::int64_t save(const core::run_result& run, const std::string& json_path);
  /// Stores `run` (which must have a uuid) unless a run with its uuid is already there, in one
  /// transaction: importing a run twice, or from two nodes at once, stores it once.
  added_run add(const core::run_result& run, const std::string& json_path);
  /// As above, taking `run` apart as it goes: its telemetry (most of a long GPU run) moves into
  /// the stored document instead of being copied.
  added_run add(core::run_result&& run, const std::string& json_path);
  /// The id of the run with `uuid` in this store.
  [[nodiscard]] std::optional<std::int64_t> find(const std::string& uuid) const;
  [[nodiscard]] std::vector<stored_run> list(const run_filter& filter) const;
  /// The run with `id`; throws usage_error when there is none.
  [[nodiscard]] core::run_result load(std::int64_t id) const;
  /// The stored JSON text of run `id`; throws usage_error when there is none.
  [[nodiscard]] std::string document(std::int64_t id) const;
  /// Deletes run `id` with its tags and cases; false when there was none.
  bool remove(std::int64_t id);
  /// The schema version of the database; 0 when there is none yet.
  [[nodiscard]] int schema_version() const;
  /// Where the store is; path().string() names it safely in messages (without a password).
  [[nodiscard]] const store_location& path() const;
  /// Whether a database with runs' tables is there (false for a path with no file yet, or an
  /// empty file, opened for reading).
  [[nodiscard]] bool holds_database() const;

 private:
  [[nodiscard]] std::string stored_uuid(std::int64_t id) const;
  [[nodiscard]] store_backend& writable();

  store_location location_;
  std::unique_ptr<store_backend> backend_;
};

/// Where runs are stored when --db is not given: $IRONBENCH_DB (a path or a postgresql:// URL),
/// else $XDG_DATA_HOME/ironbench/results.db, else ~/.local/share/ironbench/results.db.
[[nodiscard]] store_location default_database_path();

/// `given` (a --db value), or default_database_path() when it is empty.
[[nodiscard]] store_location database_path(const std::string& given);

/// Whether `key` and `value` make a tag: a key of letters, digits, '_', '-' and '.' (no '=',
/// space, ';' or '$'), a value that is not empty and on one line (no CR or LF): what --tag
/// accepts, and what `results gather` accepts of a run's tags.
[[nodiscard]] bool is_valid_tag(std::string_view key, std::string_view value);

/// Parses "key=value" (is_valid_tag's rules). Throws usage_error naming `what` (e.g. "--tag")
/// otherwise.
[[nodiscard]] std::pair<std::string, std::string> parse_tag(const std::string& text, const std::string& what);

/// parse_tag() of each of `texts`, as one map. One key given twice with different values
/// ("--tag gpu=a --tag gpu=b") is a usage_error naming the key: a run carries one value per
/// key, so neither a label nor a filter can have two.
[[nodiscard]] std::map<std::string, std::string> parse_tags(const std::vector<std::string>& texts,
                                                            const std::string& what);

}  // namespace ironbench::results
