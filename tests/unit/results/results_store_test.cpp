#include "results/results_store.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"
#include "temp_dir.hpp"

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

TEST(ResultsStore, SavesLoadsAndFilters) {
  const auto path = fresh_db("filters.db");
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

TEST(ResultsStore, RejectsForeignAndNewerDatabases) {
  const auto foreign = fresh_db("foreign.db");
  exec_sql(foreign, "CREATE TABLE songs(title TEXT)");
  EXPECT_THROW(results_store{foreign}, usage_error);

  const auto newer = fresh_db("newer.db");
  { results_store store(newer, store_access::write); }
  exec_sql(newer, "PRAGMA user_version=99");
  for (const auto access : {store_access::read, store_access::write}) {
    try {
      results_store store(newer, access);
      ADD_FAILURE() << "a newer schema was accepted";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("newer than this build"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((results_store{foreign, store_access::write}), usage_error);

  const auto text = fresh_db("text.db");
  { std::ofstream(text) << "not a database, just text that is long enough to fill a header page......\n"; }
  EXPECT_THROW(results_store{text}, usage_error);
  EXPECT_THROW((results_store{text, store_access::write}), usage_error);
}

TEST(ResultsStore, ParsesTags) {
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
TEST(ResultsStore, LongTagsAreReadWithoutRecursion) {
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
TEST(ResultsStore, OneKeyWithTwoValuesIsAnError) {
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

[[noreturn]] void save_forever(const std::filesystem::path& path) {
  try {
    results_store store(path);
    for (int n = 0;; ++n) (void)store.save(big_run(n), "");
  } catch (...) {
    _exit(3);
  }
}

TEST(ResultsStore, SigkillWhileSavingLeavesEarlierRunsIntact) {
  const auto path = fresh_db("killed.db");
  std::size_t before = 0;
  for (int round = 0; round < 6; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) save_forever(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + 37 * round));
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself (status " << status << ")";

    EXPECT_EQ(integrity(path), "ok");
    results_store store(path);
    const auto runs = store.list({});
    EXPECT_GE(runs.size(), before) << "runs saved before the kill were lost";
    for (const auto& r : runs) {
      const auto run = store.load(r.id);  // every stored document is whole
      EXPECT_EQ(run.telemetry.at(0).at("samples").size(), 200000u);
      EXPECT_EQ(r.case_count, 1u);
    }
    before = runs.size();
  }
  EXPECT_GT(before, 0u) << "no run was ever saved: the test did not exercise a kill mid-write";
}

TEST(ResultsStore, TwoProcessesWritingAtOnceBothSucceed) {
  const auto path = fresh_db("concurrent.db");
  { results_store store(path, store_access::write); }
  constexpr int per_writer = 25;
  std::vector<pid_t> writers;
  for (int w = 0; w < 2; ++w) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        results_store store(path);
        for (int n = 0; n < per_writer; ++n) {
          (void)store.save(sample_run("writer-" + std::to_string(w), "2026-11-21T00:00:00Z", "gemm"), "");
        }
        _exit(0);
      } catch (...) {
        _exit(3);
      }
    }
    writers.push_back(child);
  }
  for (const auto child : writers) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed (status " << status << ")";
  }
  results_store store(path);
  run_filter first;
  first.host = "writer-0";
  EXPECT_EQ(store.list(first).size(), static_cast<std::size_t>(per_writer));
  EXPECT_EQ(store.list({}).size(), 2u * per_writer);
  EXPECT_EQ(integrity(path), "ok");
}

// ---- reading ----------------------------------------------------------------------------

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Reading never creates, migrates or rewrites the database: a path with no database lists no
// runs and is still absent afterwards, and an existing file keeps its bytes and its time.
TEST(ResultsStore, ReadingWritesNothing) {
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
TEST(ResultsStore, ADatabaseThatMayOnlyBeReadIsListed) {
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

}  // namespace
}  // namespace ironbench::results
