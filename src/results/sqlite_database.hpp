// A thin RAII layer over SQLite: a connection, prepared statements with bound values, and a
// transaction guard. Every failed call throws ironbench::error naming the call and SQLite's
// message, as the check macros elsewhere do for CUDA or MPI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace ironbench::results {

/// How a database file is opened.
enum class sqlite_access {
  read_only,  ///< SQLITE_OPEN_READONLY: the file must exist; nothing is ever written to it
  /// read_only, and the file taken as unchanging (SQLite's immutable=1): no locks and no
  /// shared-memory file, for a WAL database in a folder the process may not write (where
  /// SQLite cannot create the -shm file a WAL reader needs). Only right while the file has
  /// no -wal file with commits in it, and no one writes to it.
  read_only_immutable,
  read_write,  ///< created when absent
};

/// One open database file. Not copyable; one connection per thread.
class sqlite_database {
 public:
  /// Opens `path` as `access` says. `busy_timeout_ms` is how long a write waits for another
  /// process's write to finish before failing with "database is locked".
  explicit sqlite_database(const std::filesystem::path& path, sqlite_access access = sqlite_access::read_write,
                           int busy_timeout_ms = 30000);
  ~sqlite_database();
  sqlite_database(const sqlite_database&) = delete;
  sqlite_database& operator=(const sqlite_database&) = delete;

  /// Runs one or more statements that return no rows.
  void execute(const std::string& sql);
  /// Puts the database in WAL mode. Switching takes an exclusive lock for which SQLite does not
  /// always call the busy handler (processes opening a new database at once get "database is
  /// locked" at once), so a busy answer is retried until the busy timeout has passed.
  void enter_wal_mode();
  [[nodiscard]] std::int64_t last_insert_id() const;
  [[nodiscard]] int changes() const;
  [[nodiscard]] sqlite3* handle() const { return db_; }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  int busy_timeout_ms_ = 0;
};

/// A prepared statement. Bind with 1-based indices, step() until it returns false.
class sqlite_statement {
 public:
  sqlite_statement(sqlite_database& db, const std::string& sql);
  ~sqlite_statement();
  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

  sqlite_statement& bind(int index, std::int64_t value);
  sqlite_statement& bind(int index, double value);
  sqlite_statement& bind(int index, const std::string& value);
  sqlite_statement& bind_null(int index);

  /// Advances to the next row: true when a row is available, false when done.
  bool step();
  /// Runs a statement that returns no rows, then resets it for the next use.
  void run() {
    while (step()) {
    }
    reset();
  }
  /// Makes the statement ready to run again; bound values stay until bound anew.
  void reset();

  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;  ///< "" for NULL
  [[nodiscard]] bool is_null(int column) const;

 private:
  sqlite_database* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

/// BEGIN IMMEDIATE on construction (takes the write lock up front, so two writers queue
/// instead of deadlocking); ROLLBACK on destruction unless commit() was called.
class sqlite_transaction {
 public:
  explicit sqlite_transaction(sqlite_database& db);
  ~sqlite_transaction();
  sqlite_transaction(const sqlite_transaction&) = delete;
  sqlite_transaction& operator=(const sqlite_transaction&) = delete;
  void commit();

 private:
  sqlite_database& db_;
  bool done_ = false;
};

}  // namespace ironbench::results
