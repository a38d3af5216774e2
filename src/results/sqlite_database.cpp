#include "results/sqlite_database.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <thread>

#include "core/error.hpp"

namespace ironbench::results {
namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what, int code) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  throw error(fmt::format("sqlite: {} failed: {}", what, message));
}

// "file:/path/with%3Fodd%20name.db?immutable=1": a URI for SQLite, every byte outside the
// unreserved set percent-encoded.
std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(path).string()) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0 || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += c;
    } else {
      uri += fmt::format("%{:02X}", byte);
    }
  }
  return uri + "?immutable=1";
}

}  // namespace

sqlite_database::sqlite_database(const std::filesystem::path& path, sqlite_access access, int busy_timeout_ms)
    : path_(path), busy_timeout_ms_(busy_timeout_ms) {
  const bool immutable = access == sqlite_access::read_only_immutable;
  const int flags =
      (access == sqlite_access::read_write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
      (immutable ? SQLITE_OPEN_URI : 0) | SQLITE_OPEN_FULLMUTEX;
  const auto name = immutable ? immutable_uri(path) : path.string();
  const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw usage_error(fmt::format("cannot open results database {}: {}", path.string(), message));
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  sqlite3_extended_result_codes(db_, 1);
}

sqlite_database::~sqlite_database() { sqlite3_close_v2(db_); }

void sqlite_database::execute(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw error(fmt::format("sqlite: '{}' failed: {}", sql.substr(0, 60), text));
  }
}

void sqlite_database::enter_wal_mode() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  for (;;) {
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) {
      fail(db_, "'PRAGMA journal_mode=WAL'", rc);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::int64_t sqlite_database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int sqlite_database::changes() const { return sqlite3_changes(db_); }

sqlite_statement::sqlite_statement(sqlite_database& db, const std::string& sql) : db_(&db), sql_(sql) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) fail(db.handle(), fmt::format("preparing '{}'", sql.substr(0, 60)), rc);
}

sqlite_statement::~sqlite_statement() { sqlite3_finalize(stmt_); }

sqlite_statement& sqlite_statement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) fail(db_->handle(), "bind", rc);
  return *this;
}

sqlite_statement& sqlite_statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) fail(db_->handle(), "bind", rc);
  return *this;
}

sqlite_statement& sqlite_statement::bind(int index, const std::string& value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(db_->handle(), "bind", rc);
  return *this;
}

sqlite_statement& sqlite_statement::bind_null(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(db_->handle(), "bind", rc);
  return *this;
}

bool sqlite_statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_->handle(), fmt::format("'{}'", sql_.substr(0, 60)), rc);
}

void sqlite_statement::reset() { sqlite3_reset(stmt_); }

std::int64_t sqlite_statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double sqlite_statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
bool sqlite_statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::string sqlite_statement::text(int column) const {
  const auto* data = sqlite3_column_text(stmt_, column);
  if (data == nullptr) return {};
  return {reinterpret_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

sqlite_transaction::sqlite_transaction(sqlite_database& db) : db_(db) { db_.execute("BEGIN IMMEDIATE"); }

sqlite_transaction::~sqlite_transaction() {
  if (done_) return;
  try {
    db_.execute("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing more can be done while unwinding
  }
}

void sqlite_transaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

}  // namespace ironbench::results
