#include "results/results_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
  results_store store(path);
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
  { results_store store(newer); }
  exec_sql(newer, "PRAGMA user_version=99");
  try {
    results_store store(newer);
    FAIL() << "a newer schema was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this build"), std::string::npos) << e.what();
  }

  const auto text = fresh_db("text.db");
  { std::ofstream(text) << "not a database, just text that is long enough to fill a header page......\n"; }
  EXPECT_THROW(results_store{text}, usage_error);
}

TEST(ResultsStore, ParsesTags) {
  EXPECT_EQ(parse_tag("env=vm", "--tag"), std::make_pair(std::string("env"), std::string("vm")));
  EXPECT_EQ(parse_tag("gpu.model=MI300X=a", "--tag").second, "MI300X=a");
  EXPECT_THROW((void)parse_tag("env", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("=vm", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("env=", "--tag"), usage_error);
  EXPECT_THROW((void)parse_tag("e v=x", "--tag"), usage_error);
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
  { results_store store(path); }
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

}  // namespace
}  // namespace ironbench::results
