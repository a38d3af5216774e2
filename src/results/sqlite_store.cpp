#include "results/sqlite_store.hpp"

#include <fmt/format.h>

#include <set>

#include <unistd.h>

#include "core/error.hpp"
#include "core/json.hpp"
#include "results/results_store.hpp"
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
  db.enter_wal_mode();
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

class sqlite_store final : public store_backend {
 public:
  sqlite_store(const std::filesystem::path& path, bool writing) : path_(path) {
    if (writing) {
      prepare_for_writing();
    } else {
      open_for_reading();
    }
  }

  void prepare_for_writing() override {
    if (writable_) return;
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

  [[nodiscard]] bool holds_database() const override { return db_ != nullptr; }

  [[nodiscard]] int schema_version() const override {
    return db_ ? static_cast<int>(pragma_integer(*db_, "user_version")) : 0;
  }

  inserted_run insert(const run_row& row) override {
    prepare_for_writing();
    sqlite_transaction transaction(*db_);
    if (const auto existing = find_row(row.uuid)) return {*existing, false};
    sqlite_statement insert(
        *db_,
        "INSERT INTO runs(start_time, end_time, host, command, status, case_count, json_path, document, uuid)"
        " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, row.start_time)
        .bind(2, row.end_time)
        .bind(3, row.host)
        .bind(4, row.command)
        .bind(5, row.status)
        .bind(6, static_cast<std::int64_t>(row.cases.size()))
        .bind(7, row.json_path)
        .bind(8, row.document)
        .bind(9, row.uuid)
        .run();
    const auto id = db_->last_insert_id();
    sqlite_statement tag(*db_, "INSERT INTO run_tags(run_id, key, value) VALUES(?, ?, ?)");
    for (const auto& [key, value] : row.tags) tag.bind(1, id).bind(2, key).bind(3, value).run();
    sqlite_statement add_case(*db_, "INSERT INTO cases VALUES(?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < row.cases.size(); ++i) {
      const auto& c = row.cases[i];
      add_case.bind(1, id)
          .bind(2, static_cast<std::int64_t>(i))
          .bind(3, c.benchmark)
          .bind(4, c.device)
          .bind(5, c.params)
          .bind(6, c.status)
          .bind(7, c.metrics)
          .run();
    }
    transaction.commit();
    return {id, true};
  }

  [[nodiscard]] std::optional<std::int64_t> find(const std::string& uuid) const override {
    if (!db_) return std::nullopt;
    return find_row(uuid);
  }

  [[nodiscard]] std::vector<stored_run> list(const run_filter& filter) const override {
    if (!db_) return {};
    const auto where = sql_of(filter);
    sqlite_statement query(
        *db_, fmt::format("SELECT id, start_time, end_time, host, command, status, case_count, json_path, saved_at, "
                          "{} FROM runs {}",
                          schema_version() >= 2 ? "uuid" : "NULL", where.where_and_order));
    for (std::size_t i = 0; i < where.values.size(); ++i) query.bind(static_cast<int>(i + 1), where.values[i]);
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
    }
    return runs;
  }

  [[nodiscard]] std::optional<std::string> document(std::int64_t id) const override {
    if (!db_) return std::nullopt;
    sqlite_statement query(*db_, "SELECT document FROM runs WHERE id = ?");
    query.bind(1, id);
    if (!query.step()) return std::nullopt;
    return query.text(0);
  }

  [[nodiscard]] std::optional<std::string> uuid(std::int64_t id) const override {
    if (!db_ || schema_version() < 2) return std::nullopt;
    sqlite_statement query(*db_, "SELECT uuid FROM runs WHERE id = ?");
    query.bind(1, id);
    if (query.step() && !query.is_null(0)) return query.text(0);
    return std::nullopt;
  }

  bool remove(std::int64_t id) override {
    if (!db_) return false;
    prepare_for_writing();
    sqlite_transaction transaction(*db_);
    sqlite_statement erase(*db_, "DELETE FROM runs WHERE id = ?");
    erase.bind(1, id).run();
    const bool removed = db_->changes() > 0;
    transaction.commit();
    return removed;
  }

 private:
  void open_for_reading() {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec) && !ec) return;  // no database yet: nothing to read, nothing created
    try {
      db_ = std::make_unique<sqlite_database>(path_, read_access(path_));
      if (check_schema(*db_) == schema_state::empty) db_.reset();  // an empty file: no runs yet
      // An older schema is read as it is: bringing it up to date is a write.
    } catch (const usage_error&) {
      throw;
    } catch (const error& e) {
      throw usage_error(fmt::format("cannot read results database {}: {}", path_.string(), e.what()));
    }
  }

  [[nodiscard]] std::optional<std::int64_t> find_row(const std::string& uuid) const {
    sqlite_statement query(*db_, "SELECT id FROM runs WHERE uuid = ?");
    query.bind(1, uuid);
    if (query.step()) return query.integer(0);
    return std::nullopt;
  }

  std::filesystem::path path_;
  std::unique_ptr<sqlite_database> db_;  // null while reading a path with no database
  bool writable_ = false;
};

}  // namespace

std::unique_ptr<store_backend> open_sqlite_store(const store_location& location, bool writing) {
  return std::make_unique<sqlite_store>(location.file(), writing);
}

}  // namespace ironbench::results
