#include "results/results_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>

#include <unistd.h>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "core/text_match.hpp"
#include "results/import_text.hpp"
#include "results/run_uuid.hpp"
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
    // 1 -> 2: the run's uuid (results/run_uuid.hpp); fill_uuids() gives the rows of version 1
    // theirs before the unique index is made.
    R"sql(
ALTER TABLE runs ADD COLUMN uuid TEXT;
)sql",
};

/// Indexes made after a migration's code has run (version reached -> SQL).
const std::map<int, std::string> after_migration = {
    {2, "CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);"},
};

std::int64_t pragma_integer(sqlite_database& db, const std::string& name) {
  sqlite_statement s(db, "PRAGMA " + name);
  return s.step() ? s.integer(0) : 0;
}

/// What an opened database holds.
enum class schema_state {
  empty,    ///< no tables yet (a new file)
  older,    ///< an ironbench database of an older schema
  current,  ///< an ironbench database of this build's schema
};

/// The state of `db`'s schema; throws usage_error when it is not an ironbench database or
/// is newer than this build.
schema_state check_schema(sqlite_database& db) {
  const auto version = pragma_integer(db, "user_version");
  const auto app = pragma_integer(db, "application_id");
  const auto fresh = [&] {
    sqlite_statement s(db, "SELECT count(*) FROM sqlite_master");
    return s.step() && s.integer(0) == 0;
  }();
  if (app == 0 && version == 0 && fresh) return schema_state::empty;
  if (app != application_id) {
    throw usage_error(
        fmt::format("{} is an SQLite database but not an ironbench results database", db.path().string()));
  }
  if (version > store_schema_version) {
    throw usage_error(fmt::format("{} has results schema version {}, newer than this build's {}: use a newer ironbench",
                                  db.path().string(), version, store_schema_version));
  }
  return version < store_schema_version ? schema_state::older : schema_state::current;
}

/// Gives every row without a uuid the one its document carries, else the one derived from it;
/// a second row with the same document gets one derived with its row id as salt.
void fill_uuids(sqlite_database& db) {
  std::vector<std::pair<std::int64_t, std::string>> rows;
  {
    sqlite_statement query(db, "SELECT id, document FROM runs WHERE uuid IS NULL ORDER BY id");
    while (query.step()) rows.emplace_back(query.integer(0), query.text(1));
  }
  std::set<std::string> taken;
  {
    sqlite_statement query(db, "SELECT uuid FROM runs WHERE uuid IS NOT NULL");
    while (query.step()) taken.insert(query.text(0));
  }
  sqlite_statement update(db, "UPDATE runs SET uuid = ? WHERE id = ?");
  for (const auto& [id, text] : rows) {
    std::string uuid;
    try {
      uuid = run_uuid_of(json::parse(text), "");
    } catch (const std::exception&) {  // a damaged document: its text still identifies it
      uuid = derived_run_uuid(json(text));
    }
    if (taken.count(uuid) != 0) uuid = derived_run_uuid(json(text), fmt::format("#{}", id));
    taken.insert(uuid);
    update.bind(1, uuid).bind(2, id).run();
  }
}

void migrate(sqlite_database& db) {
  // WAL: readers never block the writer and a killed writer leaves the last commit intact.
  db.execute("PRAGMA journal_mode=WAL");
  db.execute("PRAGMA synchronous=NORMAL");
  db.execute("PRAGMA foreign_keys=ON");
  sqlite_transaction transaction(db);
  (void)check_schema(db);
  const auto version = pragma_integer(db, "user_version");
  for (auto v = static_cast<std::size_t>(version); v < migrations.size(); ++v) {
    db.execute(migrations[v]);
    if (v + 1 == 2) fill_uuids(db);
    if (const auto it = after_migration.find(static_cast<int>(v + 1)); it != after_migration.end()) {
      db.execute(it->second);
    }
  }
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
  const auto refuse = [&] {
    throw usage_error(fmt::format("{} '{}' is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", flag,
                                  text.size() > 40 ? text.substr(0, 40) + "..." : text));
  };
  // YYYY-MM-DD, with THH, THH:MM or THH:MM:SS after it, and Z after that.
  const std::string_view shape = "9999-99-99T99:99:99";
  const auto shaped = text.ends_with('Z') && text.size() > 13 ? text.size() - 1 : text.size();
  if ((shaped != 10 && shaped != 13 && shaped != 16 && shaped != 19) ||
      !has_shape(std::string_view(text).substr(0, shaped), shape.substr(0, shaped))) {
    refuse();
  }
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

// How to read the database at `path`. A reader of a WAL database needs its -shm file, which
// SQLite creates beside it: where the folder is read-only and there is none (the last writer
// closed the database cleanly, leaving no -wal either), the file is read as immutable.
sqlite_access read_access(const std::filesystem::path& path) {
  const auto beside = [&](const char* suffix) { return std::filesystem::path(path.string() + suffix); };
  std::error_code ec;
  const bool shm = std::filesystem::exists(beside("-shm"), ec);
  const auto wal_size = std::filesystem::file_size(beside("-wal"), ec);
  const bool wal_empty = ec || wal_size == 0;
  const auto folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const bool folder_writable = ::access(folder.c_str(), W_OK) == 0;
  return !shm && wal_empty && !folder_writable ? sqlite_access::read_only_immutable : sqlite_access::read_only;
}

}  // namespace

results_store::results_store(const std::filesystem::path& path, store_access access) : path_(path) {
  if (access == store_access::write) {
    open_for_writing();
  } else {
    open_for_reading();
  }
}

void results_store::open_for_reading() {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec) && !ec) return;  // no database yet: nothing to read, nothing created
  try {
    db_ = std::make_unique<sqlite_database>(path_, read_access(path_));
    switch (check_schema(*db_)) {
      case schema_state::empty:  // an empty file: no runs yet
        db_.reset();
        break;
      case schema_state::older:  // read as it is: bringing it up to date is a write
        break;
      case schema_state::current: break;
    }
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(fmt::format("cannot read results database {}: {}", path_.string(), e.what()));
  }
}

void results_store::open_for_writing() {
  db_.reset();
  if (path_.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec)
      throw usage_error(
          fmt::format("cannot create the folder of results database {}: {}", path_.string(), ec.message()));
  }
  db_ = std::make_unique<sqlite_database>(path_, sqlite_access::read_write);
  try {
    migrate(*db_);
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(fmt::format("cannot use results database {}: {}", path_.string(), e.what()));
  }
  writable_ = true;
}

results_store::~results_store() = default;

const std::filesystem::path& results_store::path() const { return path_; }

bool results_store::holds_database() const { return db_ != nullptr; }

int results_store::schema_version() const { return db_ ? static_cast<int>(pragma_integer(*db_, "user_version")) : 0; }

std::int64_t results_store::save(const core::run_result& run, const std::string& json_path) {
  if (!writable_) open_for_writing();
  sqlite_transaction transaction(*db_);
  std::int64_t id = 0;
  if (run.uuid.empty()) {
    auto identified = run;
    identified.uuid = new_run_uuid();
    id = insert(identified, json_path);
  } else {
    if (const auto existing = find_in_transaction(run.uuid)) {
      throw usage_error(fmt::format("run {} is already stored in {} as run {}", run.uuid, path_.string(), *existing));
    }
    id = insert(run, json_path);
  }
  transaction.commit();
  return id;
}

added_run results_store::add(const core::run_result& run, const std::string& json_path) {
  if (run.uuid.empty()) throw error("results_store::add needs a run with a uuid");
  if (!writable_) open_for_writing();
  sqlite_transaction transaction(*db_);
  if (const auto existing = find_in_transaction(run.uuid)) return {*existing, false};
  const auto id = insert(run, json_path);
  transaction.commit();
  return {id, true};
}

std::optional<std::int64_t> results_store::find(const std::string& uuid) const {
  if (!db_) return std::nullopt;
  if (schema_version() < 2) {  // an older database read as it is: the uuids are derived
    for (const auto& r : list({})) {
      if (r.uuid == uuid) return r.id;
    }
    return std::nullopt;
  }
  return find_in_transaction(uuid);
}

std::optional<std::int64_t> results_store::find_in_transaction(const std::string& uuid) const {
  sqlite_statement query(*db_, "SELECT id FROM runs WHERE uuid = ?");
  query.bind(1, uuid);
  if (query.step()) return query.integer(0);
  return std::nullopt;
}

std::int64_t results_store::insert(const core::run_result& run, const std::string& json_path) {
  const auto document = core::json_text(core::to_json(run));
  sqlite_statement insert(
      *db_,
      "INSERT INTO runs(start_time, end_time, host, command, status, case_count, json_path, document, uuid)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, run.start_time)
      .bind(2, run.end_time)
      .bind(3, host_name(run))
      .bind(4, run.argv.size() > 1 ? run.argv[1] : std::string("unknown"))
      .bind(5, std::string(core::to_string(run.status)))
      .bind(6, static_cast<std::int64_t>(run.cases.size()))
      .bind(7, json_path)
      .bind(8, document)
      .bind(9, run.uuid)
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
  return id;
}

std::vector<stored_run> results_store::list(const run_filter& filter) const {
  check_date(filter.since, "--since");
  check_date(filter.until, "--until");
  if (!db_) return {};
  const bool has_uuids = schema_version() >= 2;
  std::string sql = fmt::format(
      "SELECT id, start_time, end_time, host, command, status, case_count, json_path, saved_at, {} FROM runs "
      "WHERE 1",
      has_uuids ? "uuid" : "NULL");
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
    r.uuid = query.text(9);
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
    if (r.uuid.empty()) r.uuid = stored_uuid(r.id);
  }
  return runs;
}

std::string results_store::document(std::int64_t id) const {
  if (!db_) throw usage_error(fmt::format("no run {} in {}: no run has been saved there", id, path_.string()));
  sqlite_statement query(*db_, "SELECT document FROM runs WHERE id = ?");
  query.bind(1, id);
  if (!query.step()) throw usage_error(fmt::format("no run {} in {}", id, path_.string()));
  return query.text(0);
}

core::run_result results_store::load(std::int64_t id) const {
  json parsed;
  try {
    parsed = json::parse(document(id));
  } catch (const json::parse_error&) {
    throw usage_error(fmt::format("run {} in {} is damaged: its JSON does not parse", id, path_.string()));
  }
  auto run = core::run_from_json(parsed, fmt::format("run {}", id));
  if (run.uuid.empty()) run.uuid = stored_uuid(id);
  return run;
}

std::string results_store::stored_uuid(std::int64_t id) const {
  if (schema_version() >= 2) {
    sqlite_statement query(*db_, "SELECT uuid FROM runs WHERE id = ?");
    query.bind(1, id);
    if (query.step() && !query.is_null(0)) return query.text(0);
  }
  // An older database read as it is: the uuid its migration will give the row.
  const auto text = document(id);
  try {
    return run_uuid_of(json::parse(text), "");
  } catch (const std::exception&) {
    return derived_run_uuid(json(text));
  }
}

bool results_store::remove(std::int64_t id) {
  if (!db_) return false;
  if (!writable_) open_for_writing();
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
  const auto equals = text.find('=');
  const auto key = std::string_view(text).substr(0, equals);
  const auto is_key_character = [](char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '.' || c == '-'; };
  if (equals == std::string::npos || key.empty() || equals + 1 == text.size() ||
      !std::all_of(key.begin(), key.end(), is_key_character) || text.find_first_of("\r\n") != std::string::npos) {
    throw usage_error(fmt::format("{} '{}' is not KEY=VALUE (KEY: letters, digits, '_', '-', '.'; VALUE: one line)",
                                  what, excerpt(text)));
  }
  return {std::string(key), text.substr(equals + 1)};
}

std::map<std::string, std::string> parse_tags(const std::vector<std::string>& texts, const std::string& what) {
  std::map<std::string, std::string> tags;
  for (const auto& text : texts) {
    auto [key, value] = parse_tag(text, what);
    if (const auto [at, added] = tags.emplace(key, value); !added && at->second != value) {
      throw usage_error(fmt::format("{} {} is given twice ({}={}, {}={}): a run carries one value per key", what, key,
                                    key, excerpt(at->second), key, excerpt(value)));
    }
  }
  return tags;
}

}  // namespace ironbench::results
