// Runs gathered from several nodes into one store with the real binary (`results gather`):
// every field of a real run kept through a JSON file and a database, each run once, and
// corrupt, foreign and newer inputs refused in one line. The shared store is of each back end
// (store_backends.hpp): an SQLite file and a fresh database of the fixture's PostgreSQL server;
// the nodes' own stores are SQLite files, the default.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <sys/stat.h>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "store_backends.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

namespace fs = std::filesystem;

// A real run on one "node": its own results folder and database.
void measure_on(const std::string& node, const std::string& tag) {
  const auto r = run_ironbench(
      {"run",           "stream", "--device",           "cpu",   "--axis",     "size=1M", "--axis", "kernel=triad",
       "--warmup",      "0",      "--min-time",         "0",     "--max-time", "0.1s",    "-q",     "--results-dir",
       node + "/saved", "--db",   node + "/results.db", "--tag", tag});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

json exported(const std::string& db, const std::string& id) {
  const auto r = run_ironbench({"results", "export", id, "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

class ResultsImport : public store_backend_test {};
IRONBENCH_STORE_BACKENDS(ResultsImport);

TEST_P(ResultsImport, GathersNodesOnceWithEveryFieldKept) {
  const temp_dir dir("ironbench_gather_cli_");
  const auto a = (dir / "node-a").string(), b = (dir / "node-b").string();
  measure_on(a, "node=a");
  measure_on(a, "node=a");
  measure_on(b, "node=b");
  const auto shared = fresh_store((dir / "shared.db").string(), "gather");

  // node a's JSON files, node b's database; then everything again: nothing twice.
  auto r = run_ironbench({"results", "gather", a + "/saved", b + "/results.db", "--db", shared});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 added, 0 already present"), std::string::npos) << r.out;
  r = run_ironbench({"results", "gather", a + "/saved", a + "/results.db", b + "/results.db", "--db", shared});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 added, 5 already present"), std::string::npos) << r.out;
  r = run_ironbench({"results", "list", "--db", shared});
  EXPECT_NE(r.out.find("3 run(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node=b"), std::string::npos) << r.out;

  // Every field of every run: the file each node wrote is what the shared store gives back.
  std::map<std::string, json> written;  // uuid -> document
  for (const auto& entry : fs::directory_iterator(a + "/saved")) {
    const auto document = json::parse(read_file(entry.path().string()));
    written[document.at("uuid").get<std::string>()] = document;
  }
  written[exported(b + "/results.db", "1").at("uuid").get<std::string>()] = exported(b + "/results.db", "1");
  ASSERT_EQ(written.size(), 3u);
  for (const char* id : {"1", "2", "3"}) {
    const auto document = exported(shared, id);
    const auto uuid = document.at("uuid").get<std::string>();
    ASSERT_EQ(written.count(uuid), 1u) << uuid;
    EXPECT_EQ(document, written.at(uuid)) << "run " << id << " differs from what its node wrote";
  }

  // And back: the shared store's export imported on a node is the run it has.
  r = run_ironbench({"results", "export", "1", "2", "3", "--db", shared, "-o", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_ironbench({"results", "gather", (dir / "run-1.json").string(), (dir / "run-2.json").string(),
                     (dir / "run-3.json").string(), "--db", b + "/results.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 added, 1 already present"), std::string::npos) << r.out;
}

std::string import_refused(const std::vector<std::string>& args) {
  const auto r = run_ironbench(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  return r.err;
}

TEST_P(ResultsImport, RefusesCorruptForeignAndNewerInputsInOneLine) {
  const temp_dir dir("ironbench_gather_cli_");
  const auto db = fresh_store((dir / "shared.db").string(), "gather_refused");
  { std::ofstream(dir / "cut.json") << R"({"schema_version": 1, "cases": [{"benchmark": "st)"; }
  { std::ofstream(dir / "vllm.json") << R"({"model_id": "m", "completed": 3, "duration": 1.5})"; }
  { std::ofstream(dir / "newer.json") << R"({"schema_version": 7, "cases": []})"; }
  EXPECT_NE(import_refused({"results", "gather", (dir / "cut.json").string(), "--db", db}).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(
      import_refused({"results", "gather", (dir / "vllm.json").string(), "--db", db}).find("ironbench import FORMAT"),
      std::string::npos);
  EXPECT_NE(
      import_refused({"results", "gather", (dir / "newer.json").string(), "--db", db}).find("newer than this build"),
      std::string::npos);
  if (postgresql()) {
    // A server's store of a newer schema, as the source.
    const auto newer_store = fresh_store("", "gather_newer");
    postgres_execute(newer_store,
                     "CREATE TABLE ironbench_schema(application TEXT PRIMARY KEY, version INTEGER NOT NULL);"
                     "INSERT INTO ironbench_schema VALUES('ironbench results', 99)");
    EXPECT_NE(import_refused({"results", "gather", newer_store, "--db", db}).find("newer than this build"),
              std::string::npos);
  }
  // A results database file of a newer schema (the source, on every back end of the target):
  // made by this build, then marked newer with the sqlite3 program.
  if (!have_program("sqlite3")) GTEST_SKIP() << "the sqlite3 program is not installed";
  measure_on((dir / "node").string(), "node=x");
  const auto newer_db = (dir / "node" / "results.db").string();
  ASSERT_EQ(wait_for(start_program("sqlite3", {newer_db, "PRAGMA user_version=99"})).exit_code, 0);
  EXPECT_NE(import_refused({"results", "gather", newer_db, "--db", db}).find("newer than this build"),
            std::string::npos);
  // Nothing was stored by any refused import (and the target was not even created).
  const auto r = run_ironbench({"results", "list", "--db", db});
  EXPECT_NE(r.out.find("0 run(s)"), std::string::npos) << r.out;
  if (sqlite()) {
    EXPECT_FALSE(fs::exists(db));
  } else {
    EXPECT_EQ(postgres_tables(db), 0u);
  }
}

// Issue 44: a folder is imported file by file, each run stored as it is read; what cannot be
// imported is named in one line each (exit 2) and what can is stored; loops, dangling links and
// FIFOs in the folder are passed over by name. Before, the symbolic link loop ended the import
// with a raw filesystem error (exit 1) and a corrupt file stored nothing.
TEST_P(ResultsImport, AFolderIsImportedFileByFileItsBadEntriesNamed) {
  const temp_dir dir("ironbench_gather_cli_");
  const auto node = (dir / "node").string();
  measure_on(node, "node=a");
  measure_on(node, "node=a");
  const auto saved = fs::path(node) / "saved";
  // One of the measured runs, read before anything else is in the folder (a directory's order
  // is the file system's: the first entry could be any file written later).
  auto tagged = json::parse(read_file(fs::directory_iterator(saved)->path().string()));
  { std::ofstream(saved / "cut.json") << R"({"schema_version": 1, "cases": [{"benchmark": "st)"; }
  tagged["uuid"] = "0192abcd-0000-4000-8000-000000000001";
  tagged["tags"] = {{"env\nnode", "b"}};
  { std::ofstream(saved / "tagged.json") << tagged.dump(); }
  fs::create_symlink("loop-b.json", saved / "loop-a.json");
  fs::create_symlink("loop-a.json", saved / "loop-b.json");
  ASSERT_EQ(::mkfifo((saved / "pipe.json").c_str(), 0600), 0);
  const auto db = fresh_store((dir / "shared.db").string(), "gather_streamed");
  const auto r = run_ironbench({"results", "gather", saved.string(), "--db", db});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("2 added, 0 already present"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_NE(r.err.find((saved / "cut.json").string() + ": not an ironbench run: not valid JSON"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find((saved / "tagged.json").string() + ": tag \"env\\nnode\"=\"b\" is not KEY=VALUE"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("passed over " + (saved / "loop-a.json").string() + ": a loop of symbolic links"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("passed over " + (saved / "pipe.json").string() + ": a named pipe (FIFO)"), std::string::npos)
      << r.out;
  const auto listed = run_ironbench({"results", "list", "--db", db});
  EXPECT_NE(listed.out.find("2 run(s)"), std::string::npos) << listed.out;
}

TEST_P(ResultsImport, AFifoADamagedDatabaseAndAnOverflowAreRefusedNamingTheFile) {
  const temp_dir dir("ironbench_gather_cli_");
  const auto db = fresh_store((dir / "shared.db").string(), "gather_named");
  // A FIFO nobody writes: refused at once (it waited for a writer before).
  const auto pipe = (dir / "pipe.json").string();
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const auto r = run_program("timeout", {"60", ironbench_binary(), "results", "gather", pipe, "--db", db});
  EXPECT_NE(r.exit_code, 124) << "the import waited on the FIFO";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'" + pipe + "': it is a named pipe (FIFO)"), std::string::npos) << r.err;
  // "schema_version": 1e400 (exit 1 without the file's name before).
  { std::ofstream(dir / "overflow.json") << R"({"schema_version": 1e400, "cases": []})"; }
  EXPECT_NE(import_refused({"results", "gather", (dir / "overflow.json").string(), "--db", db})
                .find((dir / "overflow.json").string()),
            std::string::npos);
  // A results database whose pages are damaged (exit 1 without the file's name before).
  measure_on((dir / "node").string(), "node=x");
  measure_on((dir / "node").string(), "node=x");
  const auto damaged = (dir / "node" / "results.db").string();
  {
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096 + 10);
    const std::string garbage(3000, '\x07');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const auto message = import_refused({"results", "gather", damaged, "--db", db});
  EXPECT_NE(message.find("cannot read results database " + damaged), std::string::npos) << message;
}

// `results import`, gather's former name (scripts may use it), still gathers, with one line on
// stderr naming `results gather` and `ironbench import`; `results gather` has no such line, and
// the help lists gather alone.
TEST(ResultsGatherName, TheFormerNameStillGathersWithANote) {
  const temp_dir dir("ironbench_gather_name_");
  const auto node = (dir / "node").string(), db = (dir / "shared.db").string();
  measure_on(node, "node=a");
  auto r = run_ironbench({"results", "import", node + "/saved", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 added, 0 already present"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("`results import` is now `results gather`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ironbench import FORMAT FILE"), std::string::npos) << r.err;

  r = run_ironbench({"results", "gather", node + "/saved", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 added, 1 already present"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");

  r = run_ironbench({"results", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gather"), std::string::npos) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(\n\s*import\s)"))) << r.out;
}

}  // namespace
}  // namespace ironbench::testing
