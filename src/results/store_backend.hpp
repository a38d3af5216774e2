// The interface every kind of results store implements (SQLite: results/sqlite_store.hpp,
// PostgreSQL: results/postgres_store.hpp), and the table results_store picks one from.
// results_store keeps what is common (turning a run into rows, uuids, date checks, messages);
// a back end keeps its SQL, its schema versioning and its transactions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/store_location.hpp"

namespace ironbench::results {

struct run_filter;
struct stored_run;

/// One case of a run as stored in the `cases` table.
struct case_row {
  std::string benchmark, device, params, status, metrics;  ///< params and metrics as JSON text
};

/// A run as its rows: what every back end stores in one transaction.
struct run_row {
  std::string uuid, start_time, end_time, host, command, status, json_path, document;
  std::map<std::string, std::string> tags;
  std::vector<case_row> cases;
};

/// What inserting a run did.
struct inserted_run {
  std::int64_t id = 0;  ///< the run's id: the new one, or the one already stored with its uuid
  bool added = false;   ///< false: a run with the uuid was already stored, nothing was written
};

/// One kind of store. Every failure throws: usage_error for what the user can fix (no such
/// server, a foreign or newer database), error otherwise; messages are one line and name the
/// store by location().display() only.
class store_backend {
 public:
  virtual ~store_backend() = default;

  /// Creates the tables when absent and brings an older schema up to date, in one
  /// transaction that concurrent openers wait for. Called before the first write.
  virtual void prepare_for_writing() = 0;
  /// Whether a database with the store's tables is there (false for an SQLite path with no
  /// file, or a server database without ironbench's tables, opened for reading).
  [[nodiscard]] virtual bool holds_database() const = 0;
  /// The schema version of the database; 0 when there is none yet.
  [[nodiscard]] virtual int schema_version() const = 0;

  /// Stores `row` with its tags and cases in one transaction unless a run with row.uuid is
  /// there (then nothing is written). Safe against other writers doing the same at once.
  virtual inserted_run insert(const run_row& row) = 0;
  /// The id of the run whose uuid column is `uuid`.
  [[nodiscard]] virtual std::optional<std::int64_t> find(const std::string& uuid) const = 0;
  /// The stored runs that pass `filter` (already checked), newest first; uuid is "" for rows
  /// stored before uuids existed (results_store derives theirs).
  [[nodiscard]] virtual std::vector<stored_run> list(const run_filter& filter) const = 0;
  /// Run `id`'s document, or nullopt when there is no such run.
  [[nodiscard]] virtual std::optional<std::string> document(std::int64_t id) const = 0;
  /// Run `id`'s uuid column, or nullopt when it has none (or there is no such run).
  [[nodiscard]] virtual std::optional<std::string> uuid(std::int64_t id) const = 0;
  /// Deletes run `id` with its tags and cases, in one transaction; false when there was none.
  virtual bool remove(std::int64_t id) = 0;
};

/// Opens the store at `location` for reading (writing = false) or writing. For reading nothing
/// is created or changed.
using store_backend_opener = std::unique_ptr<store_backend> (*)(const store_location& location, bool writing);

/// One row of the back-end table.
struct store_backend_entry {
  store_kind kind;
  std::string_view name;  ///< "sqlite", "postgresql"
  store_backend_opener open;
};

/// Every kind of store this build knows (results_store.cpp). A kind this build was made
/// without still has a row, whose opener throws a one-line usage_error saying so.
[[nodiscard]] const std::vector<store_backend_entry>& store_backends();

/// The SQL of a run_filter's WHERE and ORDER BY clauses: one '?' placeholder for each value,
/// and the values in placeholder order. No value is ever written into the SQL text itself.
/// SQLite binds the placeholders as they are; PostgreSQL renumbers them as $1, $2, $3.
struct filter_sql {
  std::string where_and_order;
  std::vector<std::string> values;
};
[[nodiscard]] filter_sql sql_of(const run_filter& filter);

}  // namespace ironbench::results
