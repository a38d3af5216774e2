#include "results/postgres_database.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "core/error.hpp"
#include "core/redaction.hpp"

#if IRONBENCH_HAVE_LIBPQ
#include <libpq-fe.h>
#endif

namespace ironbench::results {

std::string one_line(const std::string& message) {
  std::string out;
  bool space = false;
  for (const char c : message) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

#if IRONBENCH_HAVE_LIBPQ

namespace {

void ignore_notice(void* /*argument*/, const char* /*message*/) {}

}  // namespace

bool have_postgresql() { return true; }

postgres_result::~postgres_result() { PQclear(result_); }
int postgres_result::rows() const { return PQntuples(result_); }
bool postgres_result::is_null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }

std::string postgres_result::text(int row, int column) const {
  return {PQgetvalue(result_, row, column), static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::int64_t postgres_result::integer(int row, int column) const {
  return std::strtoll(PQgetvalue(result_, row, column), nullptr, 10);
}

std::int64_t postgres_result::changed() const { return std::strtoll(PQcmdTuples(result_), nullptr, 10); }

namespace {

// What libpq was given that it may echo: the URL's secrets (raw and decoded) and PGPASSWORD.
std::vector<std::string> secrets_of(const std::string& url) {
  auto secrets = core::connection_secrets(url, core::user_information::keep_user);
  if (const char* password = std::getenv("PGPASSWORD"); password != nullptr && *password != '\0') {
    secrets.emplace_back(password);
  }
  return secrets;
}

}  // namespace

std::string postgres_database::redacted(const char* message) const {
  return core::redact_message(one_line(message != nullptr ? message : ""), secrets_, "***");
}

postgres_database::postgres_database(const std::string& url, const std::string& shown)
    : shown_(shown), secrets_(secrets_of(url)) {
  // Defaults first: what the URL says overrides them (expand_dbname).
  const char* keys[] = {"connect_timeout", "application_name", "client_encoding", "dbname", nullptr};
  const char* values[] = {"10", "ironbench", "UTF8", url.c_str(), nullptr};
  connection_ = PQconnectdbParams(keys, values, 1);
  if (connection_ == nullptr)
    throw usage_error(fmt::format("cannot connect to results database {}: out of memory", shown_));
  if (PQstatus(connection_) != CONNECTION_OK) {
    const auto message = redacted(PQerrorMessage(connection_));
    PQfinish(connection_);
    connection_ = nullptr;
    throw usage_error(fmt::format("cannot connect to results database {}: {}", shown_, message));
  }
  PQsetNoticeProcessor(connection_, ignore_notice, nullptr);
}

postgres_database::~postgres_database() { PQfinish(connection_); }

postgres_result postgres_database::query(const std::string& sql,
                                         const std::vector<std::optional<std::string>>& parameters) {
  std::vector<const char*> values;
  values.reserve(parameters.size());
  for (const auto& p : parameters) values.push_back(p ? p->c_str() : nullptr);
  postgres_result result(PQexecParams(connection_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                      nullptr, nullptr, 0));
  const auto status = PQresultStatus(result.result_);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* text = PQresultErrorMessage(result.result_);
    const auto message = redacted(text != nullptr && *text != '\0' ? text : PQerrorMessage(connection_));
    throw error(fmt::format("results database {}: {}", shown_, message));
  }
  return result;
}

void postgres_database::execute(const std::string& sql) {
  postgres_result result(PQexec(connection_, sql.c_str()));
  const auto status = PQresultStatus(result.result_);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* text = PQresultErrorMessage(result.result_);
    const auto message = redacted(text != nullptr && *text != '\0' ? text : PQerrorMessage(connection_));
    throw error(fmt::format("results database {}: {}", shown_, message));
  }
}

#else  // built without libpq

bool have_postgresql() { return false; }

postgres_result::~postgres_result() = default;
int postgres_result::rows() const { return 0; }
bool postgres_result::is_null(int /*row*/, int /*column*/) const { return true; }
std::string postgres_result::text(int /*row*/, int /*column*/) const { return {}; }
std::int64_t postgres_result::integer(int /*row*/, int /*column*/) const { return 0; }
std::int64_t postgres_result::changed() const { return 0; }

postgres_database::postgres_database(const std::string& /*url*/, const std::string& shown) : shown_(shown) {
  throw usage_error(fmt::format(
      "cannot use results database {}: this ironbench was built without PostgreSQL support (install libpq-dev "
      "and rebuild)",
      shown_));
}

postgres_database::~postgres_database() = default;

postgres_result postgres_database::query(const std::string& /*sql*/,
                                         const std::vector<std::optional<std::string>>& /*parameters*/) {
  throw error("PostgreSQL support is not built in");
}

void postgres_database::execute(const std::string& /*sql*/) { throw error("PostgreSQL support is not built in"); }

#endif

postgres_transaction::postgres_transaction(postgres_database& db) : db_(db) { db_.execute("BEGIN"); }

postgres_transaction::~postgres_transaction() {
  if (done_) return;
  try {
    db_.execute("ROLLBACK");
  } catch (...) {  // NOLINT(bugprone-empty-catch): a connection gone has rolled back on the server
  }
}

void postgres_transaction::commit() {
  db_.execute("COMMIT");
  done_ = true;
}

}  // namespace ironbench::results
