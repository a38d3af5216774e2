#include "results/results_store.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "postgres_server.hpp"
#include "results/run_uuid.hpp"
#include "temp_dir.hpp"
#include "timed_check.hpp"

namespace ironbench::results {
namespace {

std::filesystem::path fresh_db(const std::string& name) {
  // One directory for the whole executable, removed at exit (forked writers leave with _exit).
  static const testing::temp_dir dir("ironbench_store_");
  const auto path = dir / name;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return path;
}

core::run_result sample_run(const std::string& host, const std::string& start, const std::string& benchmark,
                            std::map<std::string, std::string> tags = {}) {
  core::run_result run;
  run.argv = {"ironbench", "run", benchmark};
  run.host = {{"hostname", host}};
  run.start_time = start;
  run.end_time = start;
  run.tags = std::move(tags);
  core::case_result c;
  c.benchmark = benchmark;
  c.device = "cpu";
  c.params.set("size", std::int64_t{1024});
  c.metrics.push_back({"bandwidth", 12.5, "GB/s", ""});
  run.cases.push_back(c);
  return run;
}

void exec_sql(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

std::string integrity(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr);
  std::string result =
      sqlite3_step(s) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(s, 0)) : "no row";
  sqlite3_finalize(s);
  sqlite3_close(db);
  return result;
}

// ---- every back end ------------------------------------------------------------------------

enum class backend { sqlite, postgresql };

void PrintTo(backend b, std::ostream* out) { *out << (b == backend::sqlite ? "sqlite" : "postgresql"); }

// The tests below run on an SQLite file and on a fresh database of the fixture's PostgreSQL
// server each (skipped with the reason where there is no server).
class ResultsStore : public ::testing::TestWithParam<backend> {
 protected:
  void SetUp() override {
    if (GetParam() != backend::postgresql) return;
    std::string reason;
    server_ = testing::find_postgres_server(reason);
    if (!server_) GTEST_SKIP() << reason;
  }

  /// A store location of the parameter's kind with no database in it yet.
  store_location fresh(const std::string& name) {
    if (GetParam() == backend::sqlite) return fresh_db(name);
    return store_location(testing::fresh_postgres_database(*server_, name));
  }

  /// Runs raw SQL on the store's database, outside ironbench.
  void execute(const store_location& where, const std::string& sql) {
    if (GetParam() == backend::sqlite) {
      exec_sql(where.file(), sql);
    } else {
      testing::postgres_execute(where.connection_url(), sql);
    }
  }

  /// Rows of the store's tables that no whole run owns: tags and cases of no run, and runs
  /// whose cases are fewer than their case_count says. Must be 0 whatever was interrupted.
  std::int64_t orphans(const store_location& where) {
    const std::string sql =
        "SELECT (SELECT count(*) FROM run_tags WHERE run_id NOT IN (SELECT id FROM runs)) + "
        "(SELECT count(*) FROM cases WHERE run_id NOT IN (SELECT id FROM runs)) + "
        "(SELECT count(*) FROM runs WHERE case_count <> (SELECT count(*) FROM cases WHERE run_id = runs.id))";
    if (GetParam() == backend::postgresql) return std::stoll(testing::postgres_value(where.connection_url(), sql));
    sqlite3* db = nullptr;
    sqlite3_open(where.file().c_str(), &db);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
    const auto count = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return count;
  }

  std::optional<testing::postgres_server> server_;
};

INSTANTIATE_TEST_SUITE_P(Backends, ResultsStore, ::testing::Values(backend::sqlite, backend::postgresql),
                         [](const ::testing::TestParamInfo<backend>& info) {
                           return info.param == backend::sqlite ? std::string("sqlite") : std::string("postgresql");
                         });

TEST_P(ResultsStore, SavesLoadsAndFilters) {
  const auto path = fresh("filters.db");
  results_store store(path, store_access::write);
  EXPECT_EQ(store.schema_version(), store_schema_version);
  const auto a = store.save(sample_run("node-a", "2026-11-20T10:00:00Z", "gemm", {{"env", "vm"}}), "/x/a.json");
  const auto b = store.save(sample_run("node-b", "2026-11-21T09:00:00Z", "stream", {{"env", "baremetal"}}), "");
  const auto c = store.save(sample_run("node-a", "2026-11-21T23:59:59Z", "stream", {{"env", "vm"}, {"gpu", "x"}}), "");
  EXPECT_LT(a, b);
  EXPECT_EQ(store.list({}).size(), 3u);
  EXPECT_EQ(store.list({}).front().id, c);  // newest first

  run_filter by_tag;
  by_tag.tags = {{"env", "vm"}};
  auto runs = store.list(by_tag);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, c);
  EXPECT_EQ(runs[0].tags.at("gpu"), "x");
  EXPECT_EQ(runs[1].json_path, "/x/a.json");

  run_filter by_benchmark;
  by_benchmark.benchmark = "stream";
  by_benchmark.host = "node-a";
  runs = store.list(by_benchmark);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, c);
  EXPECT_EQ(runs[0].benchmarks, std::vector<std::string>{"stream"});

  run_filter by_date;
  by_date.since = "2026-11-21";
  by_date.until = "2026-11-21";  // the whole day
  EXPECT_EQ(store.list(by_date).size(), 2u);
  by_date.until = "2026-11-21T12:00:00Z";
  EXPECT_EQ(store.list(by_date).size(), 1u);
  by_date.until = "yesterday";
  EXPECT_THROW((void)store.list(by_date), usage_error);
  // Shaped like dates but none on the calendar (or the clock): refused, not compared as text.
  for (const char* impossible :
       {"2026-13-45", "2026-02-30", "2025-02-29", "2026-11-21T24:00:00Z", "2026-11-21T12:61"}) {
    by_date.until = impossible;
    EXPECT_THROW((void)store.list(by_date), usage_error) << impossible;
  }
  by_date.until = "2024-02-29";  // a leap day
  EXPECT_NO_THROW((void)store.list(by_date));
  by_date.until = std::string(30000, '2');  // long input: a clear error, not a deep regex
  EXPECT_THROW((void)store.list(by_date), usage_error);

  const auto loaded = store.load(a);
  EXPECT_EQ(loaded.tags.at("env"), "vm");
  ASSERT_EQ(loaded.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(loaded.cases[0].find_metric("bandwidth")->value, 12.5);

  EXPECT_TRUE(store.remove(b));
  EXPECT_FALSE(store.remove(b));
  EXPECT_THROW((void)store.load(b), usage_error);
  EXPECT_EQ(store.list({}).size(), 2u);
}

TEST_P(ResultsStore, RejectsForeignAndNewerDatabases) {
  const auto foreign = fresh("foreign.db");
  execute(foreign, GetParam() == backend::sqlite ? "CREATE TABLE songs(title TEXT)" : "CREATE TABLE runs(title TEXT)");
  EXPECT_THROW(results_store{foreign}, usage_error);
  EXPECT_THROW((results_store{foreign, store_access::write}), usage_error);

  const auto newer = fresh("newer.db");
  { results_store store(newer, store_access::write); }
  execute(newer, GetParam() == backend::sqlite ? "PRAGMA user_version=99" : "UPDATE ironbench_schema SET version = 99");
  for (const auto access : {store_access::read, store_access::write}) {
    try {
      results_store store(newer, access);
      ADD_FAILURE() << "a newer schema was accepted";
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("schema version 99, newer than this build"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  if (GetParam() != backend::sqlite) return;
  const auto text = fresh_db("text.db");
  { std::ofstream(text) << "not a database, just text that is long enough to fill a header page......\n"; }
  EXPECT_THROW(results_store{text}, usage_error);
  EXPECT_THROW((results_store{text, store_access::write}), usage_error);
}

// A run stored once however often it is added (results gather twice, two nodes at once).
TEST_P(ResultsStore, AddingARunTwiceStoresItOnce) {
  const auto path = fresh("add.db");
  results_store store(path, store_access::write);
  auto run = sample_run("node-a", "2026-11-20T10:00:00Z", "gemm", {{"env", "vm"}});
  run.uuid = new_run_uuid();
  const auto first = store.add(run, "");
  EXPECT_TRUE(first.added);
  const auto second = store.add(run, "");
  EXPECT_FALSE(second.added);
  EXPECT_EQ(second.id, first.id);
  EXPECT_EQ(store.find(run.uuid), first.id);
  EXPECT_THROW((void)store.save(run, ""), usage_error);  // save() insists on a new run
  ASSERT_EQ(store.list({}).size(), 1u);
  EXPECT_EQ(store.list({}).front().uuid, run.uuid);
  EXPECT_EQ(store.load(first.id).uuid, run.uuid);
}

TEST(StoreTags, ParsesTags) {
  EXPECT_EQ(parse_tag("env=vm", "--tag"), std::make_pair(std::string("env"), std::string("vm")));
  EXPECT_EQ(parse_tag("gpu.model=MI300X=a", "--tag").second, "MI300X=a");
  EXPECT_THROW((void)parse_tag("env", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("=vm", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("env=", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("e v=x", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("env=two\nlines", "--tag"), usage_error);
}

// A long tag once overflowed the stack of the pattern that read it (exit 139): any length
// is read, or refused in one short line.
TEST(StoreTags, LongTagsAreReadWithoutRecursion) {
  for (const std::size_t length : {30000, 200000, 2000000}) {
    const std::string value(length, 'x');
    EXPECT_EQ(parse_tag("k=" + value, "--tag").second, value);
    try {
      (void)parse_tag(value, "--tag");  // no '='
      ADD_FAILURE() << "accepted a tag without '='";
    } catch (const usage_error& e) {
      EXPECT_LT(std::string(e.what()).size(), 200u) << "the message quotes the whole value";
    }
    EXPECT_THROW((void)parse_tag(std::string(length, 'k') + " =v", "--tag"), usage_error);
  }
}

// A run carries one value per key: a key given twice with two values is refused, naming it,
// instead of one value being dropped.
TEST(StoreTags, OneKeyWithTwoValuesIsAnError) {
  EXPECT_EQ(parse_tags({"env=vm", "gpu=a"}, "--tag"),
            (std::map<std::string, std::string>{{"env", "vm"}, {"gpu", "a"}}));
  EXPECT_EQ(parse_tags({"env=vm", "env=vm"}, "--tag").size(), 1u);  // the same twice drops nothing
  try {
    (void)parse_tags({"env=vm", "gpu=a", "env=baremetal"}, "--tag");
    ADD_FAILURE() << "two values of env accepted";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "--tag env is given twice (env=vm, env=baremetal): a run carries one value per key");
  }
}

// A run big enough (several MB of JSON) that a kill lands in the middle of writing it.
core::run_result big_run(int n) {
  auto run = sample_run("killed", "2026-11-21T00:00:00Z", "stream", {{"n", std::to_string(n)}});
  auto series = json::array();
  for (int i = 0; i < 200000; ++i) series.push_back(i * 0.5);
  run.telemetry = json::array({json{{"case", 0}, {"samples", series}}});
  return run;
}

// The writer's events on a pipe: 'b' as a save begins (its run already built), 'e' once it has
// returned. Saves run back to back until the process is killed.
[[noreturn]] void save_forever(const store_location& path, int events) {
  try {
    results_store store(path);
    for (int n = 0;; ++n) {
      const auto run = big_run(n);
      if (::write(events, "b", 1) != 1) _exit(4);
      (void)store.save(run, "");
      if (::write(events, "e", 1) != 1) _exit(4);
    }
  } catch (...) {
    _exit(3);
  }
}

// The writer's next event, or 0 where none came within `timeout_ms` (or the pipe closed).
char next_event(int events, int timeout_ms) {
  pollfd p{events, POLLIN, 0};
  char c = 0;
  if (::poll(&p, 1, timeout_ms) <= 0 || ::read(events, &c, 1) != 1) return 0;
  return c;
}

// Each round kills a writer while one of its saves is under way: once a save has returned and the
// next has begun (the writer says so), after a share of the shortest save seen (0.1 to 0.85 of
// it, a different share each round). No fixed delay: a loaded machine's slower saves move the
// kill with them.
TEST_P(ResultsStore, SigkillWhileSavingLeavesEarlierRunsIntact) {
  const auto path = fresh("killed.db");
  { results_store store(path, store_access::write); }
  constexpr int rounds = 6;
  std::size_t saved = 0;  // saves that returned (the writers said 'e')
  int killed_mid_save = 0;
  double shortest_save_s = 1e9;
  for (int round = 0; round < rounds; ++round) {
    int events[2];
    ASSERT_EQ(::pipe(events), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(events[0]);
      save_forever(path, events[1]);
    }
    ::close(events[1]);
    // Evidence that a save is under way: one returned, the next began.
    int returned = 0;
    char last = 0;
    auto began = std::chrono::steady_clock::now();
    while (true) {
      // A hang guard: a save of a few MB takes well under a second even on a loaded machine.
      last = next_event(events[0], 60000);
      if (last == 0) {
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        FAIL() << "the writer said nothing for 60 s (round " << round << ")";
      }
      const auto now = std::chrono::steady_clock::now();
      if (last == 'e') {
        ++returned;
        ++saved;
        shortest_save_s = std::min(shortest_save_s, std::chrono::duration<double>(now - began).count());
      } else if (returned > 0) {
        break;  // 'b' after an 'e'
      } else {
        began = now;
      }
    }
    const double share = 0.1 + 0.15 * round;
    std::this_thread::sleep_for(std::chrono::duration<double>(share * shortest_save_s));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself (status " << status << ")";
    // What the writer said before it died: the kill came mid-save where its last word was 'b'.
    for (char c = next_event(events[0], 0); c != 0; c = next_event(events[0], 0)) {
      last = c;
      if (c == 'e') ++saved;
    }
    ::close(events[0]);
    if (last == 'b') ++killed_mid_save;

    if (GetParam() == backend::sqlite) {
      EXPECT_EQ(integrity(path.file()), "ok");
    }
    // The server notices the lost client on its own time: wait for its transaction to end.
    for (int i = 0; i < 100 && GetParam() == backend::postgresql; ++i) {
      if (testing::postgres_value(path.connection_url(),
                                  "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
                                  "pid <> pg_backend_pid()") == "0")
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(orphans(path), 0) << "a part of a run was stored";
    results_store store(path);
    const auto runs = store.list({});
    // Every save that returned is stored; a killed one is stored whole or not at all (it may
    // have committed just before the kill, before it could say so).
    EXPECT_GE(runs.size(), saved) << "runs saved before the kill were lost";
    EXPECT_LE(runs.size(), saved + static_cast<std::size_t>(round) + 1) << "more runs than saves";
    for (const auto& r : runs) {
      const auto run = store.load(r.id);  // every stored document is whole
      EXPECT_EQ(run.telemetry.at(0).at("samples").size(), 200000u);
      EXPECT_EQ(r.case_count, 1u);
    }
  }
  EXPECT_GE(saved, static_cast<std::size_t>(rounds));
  // Where the kills land depends on the machine's timing: reported for
  // bench/timed_tests_under_load.sh, and at least one of the six must come mid-save.
  testing::expect_time_not_below("kills that came while a save was under way", killed_mid_save, rounds, rounds - 1,
                                 "kills");
}

// Eight nodes saving at once: every run stored, none twice, ids all different.
TEST_P(ResultsStore, EightProcessesWritingAtOnceAllSucceed) {
  const auto path = fresh("concurrent.db");
  constexpr int writers = 8;
  constexpr int per_writer = 12;
  std::vector<pid_t> children;
  for (int w = 0; w < writers; ++w) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        // Each opens the new database for writing itself: the first creates the tables, the
        // others wait for it (SQLite's write lock, PostgreSQL's advisory lock).
        results_store store(path, store_access::write);
        for (int n = 0; n < per_writer; ++n) {
          (void)store.save(sample_run("writer-" + std::to_string(w), "2026-11-21T00:00:00Z", "gemm"), "");
        }
        _exit(0);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        _exit(3);
      }
    }
    children.push_back(child);
  }
  for (const auto child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed (status " << status << ")";
  }
  results_store store(path);
  for (int w = 0; w < writers; ++w) {
    run_filter one;
    one.host = "writer-" + std::to_string(w);
    EXPECT_EQ(store.list(one).size(), static_cast<std::size_t>(per_writer)) << one.host;
  }
  const auto runs = store.list({});
  EXPECT_EQ(runs.size(), static_cast<std::size_t>(writers * per_writer));
  std::set<std::int64_t> ids;
  std::set<std::string> uuids;
  for (const auto& r : runs) {
    ids.insert(r.id);
    uuids.insert(r.uuid);
  }
  EXPECT_EQ(ids.size(), runs.size());
  EXPECT_EQ(uuids.size(), runs.size());
  EXPECT_EQ(orphans(path), 0);
  if (GetParam() == backend::sqlite) {
    EXPECT_EQ(integrity(path.file()), "ok");
  }
}

// The same run imported by eight processes at once is stored once (ON CONFLICT on the uuid in
// PostgreSQL, the write lock in SQLite), and each of them is told so.
TEST_P(ResultsStore, OneRunAddedByEightProcessesAtOnceIsStoredOnce) {
  const auto path = fresh("race.db");
  { results_store store(path, store_access::write); }
  auto run = sample_run("node-a", "2026-11-20T10:00:00Z", "gemm", {{"env", "vm"}});
  run.uuid = new_run_uuid();
  std::vector<pid_t> children;
  for (int w = 0; w < 8; ++w) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        results_store store(path, store_access::write);
        _exit(store.add(run, "").added ? 10 : 11);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "writer %d: %s\n", w, e.what());
        _exit(3);
      }
    }
    children.push_back(child);
  }
  int added = 0, present = 0;
  for (const auto child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    added += WEXITSTATUS(status) == 10 ? 1 : 0;
    present += WEXITSTATUS(status) == 11 ? 1 : 0;
  }
  EXPECT_EQ(added, 1);
  EXPECT_EQ(present, 7);
  const results_store store(path);
  EXPECT_EQ(store.list({}).size(), 1u);
  EXPECT_EQ(orphans(path), 0);
}

// ---- reading ----------------------------------------------------------------------------

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reading never creates, migrates or rewrites the database: a path with no database lists no
// runs and is still absent afterwards, and an existing file keeps its bytes and its time.
TEST(SqliteStore, ReadingWritesNothing) {
  const auto absent = fresh_db("absent/results.db");
  {
    const results_store store(absent);
    EXPECT_FALSE(store.holds_database());
    EXPECT_TRUE(store.list({}).empty());
    EXPECT_EQ(store.schema_version(), 0);
    try {
      (void)store.load(1);
      ADD_FAILURE() << "loaded a run from nothing";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("no run 1 in " + absent.string()), std::string::npos) << e.what();
    }
  }
  {
    results_store store(absent);
    EXPECT_FALSE(store.remove(1));
  }
  EXPECT_FALSE(std::filesystem::exists(absent));
  EXPECT_FALSE(std::filesystem::exists(absent.parent_path())) << "reading created the database's folder";

  const auto path = fresh_db("read.db");
  {
    results_store store(path, store_access::write);
    (void)store.save(sample_run("node-a", "2026-11-20T10:00:00Z", "gemm", {{"env", "vm"}}), "");
  }
  const auto bytes = file_bytes(path);
  const auto time = std::filesystem::last_write_time(path);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a rewrite would show in the time
  {
    const results_store store(path);
    EXPECT_TRUE(store.holds_database());
    EXPECT_EQ(store.schema_version(), store_schema_version);
    ASSERT_EQ(store.list({}).size(), 1u);
    EXPECT_EQ(store.load(store.list({}).front().id).tags.at("env"), "vm");
  }
  EXPECT_EQ(file_bytes(path), bytes);
  EXPECT_EQ(std::filesystem::last_write_time(path), time);

  // Saving through a store opened for reading opens it for writing first.
  results_store store(path);
  (void)store.save(sample_run("node-b", "2026-11-21T10:00:00Z", "gemm"), "");
  EXPECT_EQ(store.list({}).size(), 2u);
}

// A database the process may only read (mode 0444 in a folder of mode 0555) lists, shows and
// loads. Root ignores file modes, so as root the reader is a child process that drops to
// nobody (uid 65534) first.
TEST(SqliteStore, ADatabaseThatMayOnlyBeReadIsListed) {
  const testing::temp_dir dir("ironbench_readonly_");
  const auto folder = dir / "store";
  std::filesystem::create_directory(folder);
  const auto path = folder / "results.db";
  std::int64_t id = 0;
  {
    results_store store(path, store_access::write);
    id = store.save(sample_run("node-a", "2026-11-20T10:00:00Z", "gemm", {{"env", "vm"}}), "");
  }
  ASSERT_FALSE(std::filesystem::exists(path.string() + "-wal")) << "the writer left its WAL behind";
  using std::filesystem::perms;
  std::filesystem::permissions(dir.path(), perms::owner_all | perms::group_exec | perms::others_exec);
  std::filesystem::permissions(path, perms::owner_read | perms::group_read | perms::others_read);
  std::filesystem::permissions(folder, perms::owner_read | perms::owner_exec | perms::group_read | perms::group_exec |
                                           perms::others_read | perms::others_exec);
  const auto restore = [&] { std::filesystem::permissions(folder, perms::owner_all); };
  const bool root = geteuid() == 0;
  const pid_t child = root ? fork() : 0;
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    if (root && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
    try {
      const results_store store(path);
      const auto runs = store.list({});
      if (runs.size() != 1 || store.load(id).tags.at("env") != "vm") code = 11;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "reader: %s\n", e.what());
      code = 12;
    }
    if (!root) {
      restore();
      ASSERT_EQ(code, 0);
      return;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  restore();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 10) GTEST_SKIP() << "cannot switch to uid 65534 here";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "reading as nobody failed (status " << status << ": 11 wrong runs, 12 an error, printed above)";
}

// ---- PostgreSQL only -------------------------------------------------------------------------

class PostgresStore : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    server_ = testing::find_postgres_server(reason);
    if (!server_) GTEST_SKIP() << reason;
  }
  std::optional<testing::postgres_server> server_;
};

// Reading a database without ironbench's tables lists no runs and creates nothing there.
TEST_F(PostgresStore, ReadingCreatesNoTables) {
  const auto url = testing::fresh_postgres_database(*server_, "read");
  {
    const results_store store(url);
    EXPECT_FALSE(store.holds_database());
    EXPECT_TRUE(store.list({}).empty());
    EXPECT_THROW((void)store.load(1), usage_error);
  }
  EXPECT_EQ(testing::postgres_value(url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), "0");
  results_store store(url);
  (void)store.save(sample_run("node-a", "2026-11-20T10:00:00Z", "gemm"), "");  // saving opens it for writing
  EXPECT_EQ(store.list({}).size(), 1u);
  EXPECT_EQ(testing::postgres_value(url, "SELECT version FROM ironbench_schema"), std::to_string(store_schema_version));
}

// The server's end of the connection goes away while a run is being stored (the backend
// terminated, as a server restart or a network cut does): the save fails with one line naming
// the store without its password, and nothing of that run is stored.
TEST_F(PostgresStore, ConnectionLostMidWriteLeavesNoPartialRunAndOneLineError) {
  const auto url = testing::fresh_postgres_database(*server_, "lost");
  const store_location where(url);
  { results_store store(where, store_access::write); }
  std::string message;
  std::atomic<int> saved{0};
  std::thread writer([&] {
    try {
      results_store store(where, store_access::write);
      for (int n = 0; n < 1000; ++n) {
        (void)store.save(big_run(n), "");
        ++saved;
      }
    } catch (const std::exception& e) {
      message = e.what();
    }
  });
  // Once a run is stored, end the writer's connection while it is inside a transaction.
  bool terminated = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!terminated && std::chrono::steady_clock::now() < deadline) {
    if (saved.load() >= 1) {
      terminated = testing::postgres_value(url,
                                           "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM "
                                           "pg_stat_activity WHERE datname = current_database() AND "
                                           "pid <> pg_backend_pid() AND xact_start IS NOT NULL AND "
                                           "state <> 'idle') t") != "0";
    }
    if (!terminated) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  writer.join();
  ASSERT_TRUE(terminated) << "the writer was never caught inside a transaction";
  ASSERT_FALSE(message.empty()) << "the writer did not notice its connection was gone";
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_NE(message.find("postgresql://ironbench:***@127.0.0.1"), std::string::npos) << message;
  EXPECT_EQ(message.find(server_->password), std::string::npos) << message;

  const results_store store(where);
  const auto runs = store.list({});
  EXPECT_EQ(runs.size(), static_cast<std::size_t>(saved.load())) << "a run the writer did not finish is stored";
  for (const auto& r : runs) EXPECT_EQ(store.load(r.id).telemetry.at(0).at("samples").size(), 200000u);
  EXPECT_EQ(testing::postgres_value(url, "SELECT count(*) FROM cases WHERE run_id NOT IN (SELECT id FROM runs)"), "0");
  EXPECT_EQ(testing::postgres_value(url, "SELECT count(*) FROM run_tags WHERE run_id NOT IN (SELECT id FROM runs)"),
            "0");
}

// Neither a wrong password nor a server that is not there puts the URL's password in a message.
TEST_F(PostgresStore, MessagesNeverCarryThePassword) {
  const std::string secret = "s3cret-Word";
  auto wrong = server_->url;
  wrong.replace(wrong.find(server_->password), server_->password.size(), secret);
  for (const auto& url : {wrong, std::string("postgresql://someone:") + secret + "@127.0.0.1:1/db",
                          testing::with_database(server_->url, "no_such_database")}) {
    try {
      results_store store(url, store_access::write);
      ADD_FAILURE() << "opened " << store.path().string();
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find(secret), std::string::npos) << message;
      EXPECT_EQ(message.find(server_->password), std::string::npos) << message;
      EXPECT_NE(message.find(":***@127.0.0.1"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  const results_store store(testing::fresh_postgres_database(*server_, "shown"));
  EXPECT_EQ(store.path().string().find(server_->password), std::string::npos);
}

}  // namespace
}  // namespace ironbench::results
