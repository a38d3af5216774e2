#include "results/results_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <regex>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "results/sqlite_database.hpp"

namespace ironbench::results {
namespace {

/// "IRNB": marks the file as an ironbench results database.
constexpr std::int64_t application_id = 0x49524E42;

/// migrations[v] takes a database from version v to v + 1.
const std::vector<std::string> migrations = {
    R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  start_time TEXT NOT NULL,
  end_time TEXT NOT NULL,
  host TEXT NOT NULL,
  command TEXT NOT NULL,
  status TEXT NOT NULL,
  case_count INTEGER NOT NULL,
  json_path TEXT NOT NULL,
  document TEXT NOT NULL,
  saved_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE run_tags(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(run_id, key));
CREATE TABLE cases(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  case_index INTEGER NOT NULL,
  benchmark TEXT NOT NULL,
  device TEXT NOT NULL,
  params TEXT NOT NULL,
  status TEXT NOT NULL,
  metrics TEXT NOT NULL,
  PRIMARY KEY(run_id, case_index));
CREATE INDEX runs_by_start ON runs(start_time);
CREATE INDEX runs_by_host ON runs(host);
CREATE INDEX tags_by_key ON run_tags(key, value);
CREATE INDEX cases_by_benchmark ON cases(benchmark);
)sql",
};

std::int64_t pragma_integer(sqlite_database& db, const std::string& name) {
  sqlite_statement s(db, "PRAGMA " + name);
  return s.step() ? s.integer(0) : 0;
}

void migrate(sqlite_database& db) {
  // WAL: readers never block the writer and a killed writer leaves the last commit intact.
  db.execute("PRAGMA journal_mode=WAL");
  db.execute("PRAGMA synchronous=NORMAL");
  db.execute("PRAGMA foreign_keys=ON");
  sqlite_transaction transaction(db);
  const auto version = pragma_integer(db, "user_version");
  const auto app = pragma_integer(db, "application_id");
  const auto fresh = [&] {
    sqlite_statement s(db, "SELECT count(*) FROM sqlite_master");
    return s.step() && s.integer(0) == 0;
  }();
  if (app != application_id && !(app == 0 && version == 0 && fresh)) {
    throw usage_error(
        fmt::format("{} is an SQLite database but not an ironbench results database", db.path().string()));
  }
  if (version > store_schema_version) {
    throw usage_error(fmt::format("{} has results schema version {}, newer than this build's {}: use a newer ironbench",
                                  db.path().string(), version, store_schema_version));
  }
  for (auto v = static_cast<std::size_t>(version); v < migrations.size(); ++v) db.execute(migrations[v]);
  db.execute(fmt::format("PRAGMA application_id={}", application_id));
  db.execute(fmt::format("PRAGMA user_version={}", store_schema_version));
  transaction.commit();
}

std::string host_name(const core::run_result& run) {
  if (run.host.is_object() && run.host.contains("hostname") && run.host.at("hostname").is_string()) {
    return run.host.at("hostname").get<std::string>();
  }
  return "unknown";
}

void check_date(const std::string& text, const char* flag) {
  if (text.empty()) return;
  static const std::regex iso(R"(\d{4}-\d{2}-\d{2}(T\d{2}(:\d{2}(:\d{2})?)?Z?)?)");
  const auto refuse = [&] {
    throw usage_error(fmt::format("{} '{}' is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", flag,
                                  text.size() > 40 ? text.substr(0, 40) + "..." : text));
  };
  if (text.size() > 20 || !std::regex_match(text, iso)) refuse();
  // The calendar too: 2026-13-45 has the shape of a date and is none.
  const auto number = [&](std::size_t at, std::size_t length) { return std::stoi(text.substr(at, length)); };
  const std::chrono::year_month_day day{std::chrono::year{number(0, 4)},
                                        std::chrono::month{static_cast<unsigned>(number(5, 2))},
                                        std::chrono::day{static_cast<unsigned>(number(8, 2))}};
  if (!day.ok()) refuse();
  if (text.size() >= 13 && number(11, 2) > 23) refuse();
  if (text.size() >= 16 && number(14, 2) > 59) refuse();
  if (text.size() >= 19 && number(17, 2) > 60) refuse();
}

}  // namespace

results_store::results_store(const std::filesystem::path& path) {
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec)
      throw usage_error(
          fmt::format("cannot create the folder of results database {}: {}", path.string(), ec.message()));
  }
  db_ = std::make_unique<sqlite_database>(path);
  try {
    migrate(*db_);
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(fmt::format("cannot use results database {}: {}", path.string(), e.what()));
  }
}

results_store::~results_store() = default;

const std::filesystem::path& results_store::path() const { return db_->path(); }

int results_store::schema_version() const { return static_cast<int>(pragma_integer(*db_, "user_version")); }

std::int64_t results_store::save(const core::run_result& run, const std::string& json_path) {
  const auto document = core::json_text(core::to_json(run));
  sqlite_transaction transaction(*db_);
  sqlite_statement insert(
      *db_,
      "INSERT INTO runs(start_time, end_time, host, command, status, case_count, json_path, document)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, run.start_time)
      .bind(2, run.end_time)
      .bind(3, host_name(run))
      .bind(4, run.argv.size() > 1 ? run.argv[1] : std::string("unknown"))
      .bind(5, std::string(core::to_string(run.status)))
      .bind(6, static_cast<std::int64_t>(run.cases.size()))
      .bind(7, json_path)
      .bind(8, document)
      .run();
  const auto id = db_->last_insert_id();
  sqlite_statement tag(*db_, "INSERT INTO run_tags(run_id, key, value) VALUES(?, ?, ?)");
  for (const auto& [key, value] : run.tags) {
    tag.bind(1, id).bind(2, key).bind(3, value).run();
  }
  sqlite_statement add_case(*db_, "INSERT INTO cases VALUES(?, ?, ?, ?, ?, ?, ?)");
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    const auto& c = run.cases[i];
    json metrics = json::object();
    for (const auto& m : c.metrics) metrics[m.name] = m.value;
    add_case.bind(1, id)
        .bind(2, static_cast<std::int64_t>(i))
        .bind(3, c.benchmark)
        .bind(4, c.device)
        .bind(5, core::json_text(core::to_json(c.params)))
        .bind(6, std::string(core::to_string(c.status)))
        .bind(7, core::json_text(metrics))
        .run();
  }
  transaction.commit();
  return id;
}

std::vector<stored_run> results_store::list(const run_filter& filter) const {
  check_date(filter.since, "--since");
  check_date(filter.until, "--until");
  std::string sql =
      "SELECT id, start_time, end_time, host, command, status, case_count, json_path, saved_at FROM runs WHERE 1";
  std::vector<std::string> values;
  if (!filter.benchmark.empty()) {
    sql += " AND id IN (SELECT run_id FROM cases WHERE benchmark = ?)";
    values.push_back(filter.benchmark);
  }
  for (const auto& [key, value] : filter.tags) {
    sql += " AND id IN (SELECT run_id FROM run_tags WHERE key = ? AND value = ?)";
    values.push_back(key);
    values.push_back(value);
  }
  if (!filter.host.empty()) {
    sql += " AND host = ?";
    values.push_back(filter.host);
  }
  if (!filter.since.empty()) {
    sql += " AND start_time >= ?";
    values.push_back(filter.since);
  }
  if (!filter.until.empty()) {
    sql += " AND start_time < ?";
    // A bare date includes the whole day: '~' sorts after the 'T' of every time that day.
    values.push_back(filter.until.size() == 10 ? filter.until + "~" : filter.until);
  }
  sql += " ORDER BY start_time DESC, id DESC";
  if (filter.limit > 0) sql += fmt::format(" LIMIT {}", filter.limit);
  sqlite_statement query(*db_, sql);
  for (std::size_t i = 0; i < values.size(); ++i) query.bind(static_cast<int>(i + 1), values[i]);
  std::vector<stored_run> runs;
  while (query.step()) {
    stored_run r;
    r.id = query.integer(0);
    r.start_time = query.text(1);
    r.end_time = query.text(2);
    r.host = query.text(3);
    r.command = query.text(4);
    r.status = query.text(5);
    r.case_count = static_cast<std::size_t>(query.integer(6));
    r.json_path = query.text(7);
    r.saved_at = query.text(8);
    runs.push_back(std::move(r));
  }
  sqlite_statement tags(*db_, "SELECT key, value FROM run_tags WHERE run_id = ? ORDER BY key");
  sqlite_statement benchmarks(
      *db_, "SELECT benchmark FROM cases WHERE run_id = ? GROUP BY benchmark ORDER BY min(case_index)");
  for (auto& r : runs) {
    tags.bind(1, r.id);
    while (tags.step()) r.tags[tags.text(0)] = tags.text(1);
    tags.reset();
    benchmarks.bind(1, r.id);
    while (benchmarks.step()) r.benchmarks.push_back(benchmarks.text(0));
    benchmarks.reset();
  }
  return runs;
}

std::string results_store::document(std::int64_t id) const {
  sqlite_statement query(*db_, "SELECT document FROM runs WHERE id = ?");
  query.bind(1, id);
  if (!query.step()) throw usage_error(fmt::format("no run {} in {}", id, db_->path().string()));
  return query.text(0);
}

core::run_result results_store::load(std::int64_t id) const {
  json parsed;
  try {
    parsed = json::parse(document(id));
  } catch (const json::parse_error&) {
    throw usage_error(fmt::format("run {} in {} is damaged: its JSON does not parse", id, db_->path().string()));
  }
  return core::run_from_json(parsed, fmt::format("run {}", id));
}

bool results_store::remove(std::int64_t id) {
  sqlite_transaction transaction(*db_);
  sqlite_statement erase(*db_, "DELETE FROM runs WHERE id = ?");
  erase.bind(1, id).run();
  const bool removed = db_->changes() > 0;
  transaction.commit();
  return removed;
}

std::filesystem::path default_database_path() {
  if (const char* db = std::getenv("IRONBENCH_DB"); db != nullptr && *db != '\0') return db;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data != '\0') {
    return std::filesystem::path(data) / "ironbench" / "results.db";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local" / "share" / "ironbench" / "results.db";
  }
  return std::filesystem::path("ironbench-results") / "results.db";
}

std::filesystem::path database_path(const std::string& given) {
  return given.empty() ? default_database_path() : std::filesystem::path(given);
}

std::pair<std::string, std::string> parse_tag(const std::string& text, const std::string& what) {
  static const std::regex tag(R"(([A-Za-z0-9_.\-]+)=(.+))");
  std::smatch m;
  if (!std::regex_match(text, m, tag)) {
    throw usage_error(fmt::format("{} '{}' is not KEY=VALUE (KEY: letters, digits, '_', '-', '.')", what, text));
  }
  return {m[1].str(), m[2].str()};
}

}  // namespace ironbench::results
