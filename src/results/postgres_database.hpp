// A thin RAII layer over libpq: a connection, statements with text parameters ($1, $2, …)
// run one at a time, their results, and a transaction guard. Every failed call throws
// ironbench::error with libpq's message on one line, naming the server by its redacted URL
// only; libpq's messages pass through core::redact_message with every secret it was given (the
// URL's password and secret parameters, PGPASSWORD), so that none is ever shown. Built without libpq
// (IRONBENCH_HAVE_LIBPQ 0), connecting throws a usage_error saying so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct pg_conn;
struct pg_result;

namespace ironbench::results {

/// Whether this build can reach PostgreSQL servers.
[[nodiscard]] bool have_postgresql();

/// The rows a statement returned, as text ("" and is_null() for NULL).
class postgres_result {
 public:
  explicit postgres_result(pg_result* result) : result_(result) {}
  ~postgres_result();
  postgres_result(postgres_result&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  postgres_result& operator=(postgres_result&&) = delete;
  postgres_result(const postgres_result&) = delete;
  postgres_result& operator=(const postgres_result&) = delete;

  [[nodiscard]] int rows() const;
  [[nodiscard]] std::string text(int row, int column) const;
  [[nodiscard]] std::int64_t integer(int row, int column) const;
  [[nodiscard]] bool is_null(int row, int column) const;
  /// Rows a command changed (INSERT, UPDATE, DELETE).
  [[nodiscard]] std::int64_t changed() const;

 private:
  friend class postgres_database;
  pg_result* result_;
};

/// One connection. Not copyable; one per thread.
class postgres_database {
 public:
  /// Connects to `url` (libpq's URL form; its password, PGPASSWORD and PGPASSFILE as libpq reads
  /// them). `shown` is how messages name the server (the URL without its password). Throws
  /// usage_error in one line when it cannot connect.
  postgres_database(const std::string& url, const std::string& shown);
  ~postgres_database();
  postgres_database(const postgres_database&) = delete;
  postgres_database& operator=(const postgres_database&) = delete;

  /// Runs `sql` with `parameters` bound to $1, $2, … as text (nullopt: NULL).
  postgres_result query(const std::string& sql, const std::vector<std::optional<std::string>>& parameters = {});
  /// Runs one or more statements without parameters (DDL, BEGIN, COMMIT).
  void execute(const std::string& sql);
  [[nodiscard]] const std::string& shown() const { return shown_; }

 private:
  /// libpq's `message` on one line without any secret it was given.
  [[nodiscard]] std::string redacted(const char* message) const;

  pg_conn* connection_ = nullptr;
  std::string shown_;
  std::vector<std::string> secrets_;
};

/// BEGIN on construction; ROLLBACK on destruction unless commit() was called (where the
/// connection is gone, the server has rolled back already).
class postgres_transaction {
 public:
  explicit postgres_transaction(postgres_database& db);
  ~postgres_transaction();
  postgres_transaction(const postgres_transaction&) = delete;
  postgres_transaction& operator=(const postgres_transaction&) = delete;
  void commit();

 private:
  postgres_database& db_;
  bool done_ = false;
};

/// libpq's multi-line message (with its "FATAL:  " and tabs) as one line.
[[nodiscard]] std::string one_line(const std::string& message);

}  // namespace ironbench::results
