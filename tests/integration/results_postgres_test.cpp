// The shared PostgreSQL store through the real binary, on the server of the ctest fixture
// postgres_server (tests/postgres/server.sh; skipped with the reason where there is none):
// every results command on it, eight nodes storing at once, a newer schema and an unreachable
// server refused in one line, and the server's password written nowhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "core/json.hpp"
#include "files.hpp"
#include "postgres_server.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

namespace fs = std::filesystem;

class ResultsPostgres : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    server_ = find_postgres_server(reason);
    if (!server_) GTEST_SKIP() << reason;
    ASSERT_FALSE(server_->password.empty());
  }

  /// Runs ironbench and keeps what it printed, for the password check at the end.
  process_result ironbench(const std::vector<std::string>& args) {
    auto r = run_ironbench(args);
    printed_ += r.out + r.err;
    return r;
  }

  /// A quick real STREAM run stored in `db`, its JSON in `dir`/saved.
  std::vector<std::string> run_args(const std::string& db, const std::string& dir, const std::string& tag) {
    return {"run",          "stream", "--device",   "cpu",   "--axis",     "size=1M", "--axis", "kernel=triad",
            "--warmup",     "0",      "--min-time", "0",     "--max-time", "0.1s",    "-q",     "--results-dir",
            dir + "/saved", "--db",   db,           "--tag", tag};
  }

  std::optional<postgres_server> server_;
  std::string printed_;
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(ResultsPostgres, EveryCommandWorksOnTheSharedStoreAndThePasswordIsWrittenNowhere) {
  const temp_dir dir("ironbench_pg_cli_");
  const auto db = fresh_postgres_database(*server_, "cli");
  const auto shown = std::regex_replace(db, std::regex(":" + server_->password + "@"), ":***@");
  ASSERT_NE(shown, db);

  auto r = ironbench(run_args(db, dir.str(), "env=a"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "stored: run 1 in " + shown)) << r.out;
  r = ironbench(run_args(db, dir.str(), "env=b"));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  r = ironbench({"results", "list", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 run(s) in " + shown)) << r.out;
  const auto exported = json::parse(ironbench({"results", "export", "1", "--db", db}).out);
  const auto uuid = exported.at("uuid").get<std::string>();
  EXPECT_TRUE(contains(r.out, uuid)) << "results list shows no uuid:\n" << r.out;
  r = ironbench({"results", "show", "1", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "run 1 (" + uuid + ") env=a")) << r.out;

  // The stored run is the file the run wrote.
  bool found = false;
  for (const auto& entry : fs::directory_iterator(dir / "saved")) {
    const auto written = json::parse(read_file(entry.path().string()));
    if (written.at("uuid") == uuid) {
      found = true;
      EXPECT_EQ(written, exported);
    }
  }
  EXPECT_TRUE(found);

  r = ironbench({"compare", "env=a", "env=b", "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "size=1048576 kernel=triad")) << r.out;
  r = ironbench({"report", "1", "2", "--db", db, "-o", (dir / "report.html").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = ironbench({"trend", "bandwidth", "--db", db, "--benchmark", "stream"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  // Gathering the runs' files again adds nothing; into a local file, both come over.
  r = ironbench({"results", "gather", (dir / "saved").string(), "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "0 added, 2 already present in " + shown)) << r.out;
  r = ironbench({"results", "gather", db, "--db", (dir / "local.db").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "2 added, 0 already present")) << r.out;

  // IRONBENCH_DB names the server when --db is not given.
  const auto listed = wait_for(start_program("env", {"IRONBENCH_DB=" + db, ironbench_binary(), "results", "list"}));
  printed_ += listed.out + listed.err;
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_TRUE(contains(listed.out, "2 run(s) in " + shown)) << listed.out;

  r = ironbench({"results", "delete", "2", "--db", db});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = ironbench({"results", "show", "2", "--db", db});
  EXPECT_EQ(r.exit_code, 2);

  // The password: in no file written (run JSON, report, the local copy), no output, no stored run.
  EXPECT_FALSE(contains(printed_, server_->password));
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    if (entry.is_regular_file()) {
      EXPECT_FALSE(contains(read_file(entry.path().string()), server_->password)) << entry.path();
    }
  }
  EXPECT_EQ(postgres_value(db, "SELECT count(*) FROM runs WHERE document LIKE '%" + server_->password + "%' OR " +
                                   "json_path LIKE '%" + server_->password + "%'"),
            "0");
  EXPECT_TRUE(contains(exported.dump(), "postgresql://<redacted>@127.0.0.1")) << "the recorded command line";
}

// A password in the query string (and an sslpassword) was written out: in the console's
// `command:` line, the run file's argv and the stored document. And libpq took
// "POSTGRESQL://" (upper case) for a database name on its default server, and quoted a URL it
// could not parse, password included, in its message.
TEST_F(ResultsPostgres, APasswordInAnyFormOfTheUrlIsWrittenNowhere) {
  const temp_dir dir("ironbench_pg_query_");
  const auto db = fresh_postgres_database(*server_, "query");
  const auto at = db.find(":" + server_->password + "@");
  ASSERT_NE(at, std::string::npos) << db;
  const std::string ssl_secret = "sslkeysecret31415";
  // postgresql://USER@HOST:PORT/DB?password=PW&sslpassword=...: the password in the query only.
  const auto in_query = db.substr(0, at) + db.substr(at + server_->password.size() + 1) +
                        "?password=" + server_->password + "&sslpassword=" + ssl_secret;
  const auto upper = "POSTGRESQL" + in_query.substr(std::string("postgresql").size());
  for (const auto& url : {in_query, upper}) {
    auto args = run_args(url, dir.str(), "env=query");
    args.erase(std::find(args.begin(), args.end(), "-q"));  // the header with its command: line
    const auto r = ironbench(args);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "command: ")) << r.out;
    EXPECT_TRUE(contains(r.out, "password=<redacted>&sslpassword=<redacted>")) << r.out;
  }
  // Both runs are in the database the URL names: the upper-case scheme's host was used.
  EXPECT_EQ(postgres_value(db, "SELECT count(*) FROM runs"), "2");
  // URLs libpq cannot parse: refused before libpq quotes them.
  const auto host = db.substr(at + server_->password.size() + 2);  // 127.0.0.1:PORT/DB
  for (const auto& [url, why] : std::vector<std::pair<std::string, std::string>>{
           {"postgresql://bench:Pw%ZZ" + ssl_secret + "@" + host, "not followed by two hexadecimal digits"},
           {"postgresql://bench:" + ssl_secret + "@[::1", "no closing ']'"},
           {"postgresql://bench:pa/" + ssl_secret + "@" + host, "a '/' is written %2F"}}) {
    const auto r = ironbench({"results", "list", "--db", url});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(contains(r.err, why)) << r.err;
  }
  EXPECT_FALSE(contains(printed_, server_->password));
  EXPECT_FALSE(contains(printed_, ssl_secret));
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    if (!entry.is_regular_file()) continue;
    const auto text = read_file(entry.path().string());
    EXPECT_FALSE(contains(text, server_->password)) << entry.path();
    EXPECT_FALSE(contains(text, ssl_secret)) << entry.path();
  }
  EXPECT_EQ(postgres_value(db, "SELECT count(*) FROM runs WHERE document LIKE '%" + server_->password +
                                   "%' OR document LIKE '%" + ssl_secret + "%'"),
            "0");
}

// Eight nodes storing their runs at once: every run stored.
TEST_F(ResultsPostgres, EightNodesStoringAtOnceAllSucceed) {
  const temp_dir dir("ironbench_pg_nodes_");
  const auto db = fresh_postgres_database(*server_, "nodes");
  std::vector<started_process> nodes;
  for (int n = 0; n < 8; ++n) {
    nodes.push_back(
        start_ironbench(run_args(db, (dir / ("node-" + std::to_string(n))).string(), "node=" + std::to_string(n))));
  }
  for (const auto& node : nodes) {
    const auto r = wait_for(node);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  const auto r = ironbench({"results", "list", "--db", db});
  EXPECT_TRUE(contains(r.out, "8 run(s)")) << r.out;
  for (int n = 0; n < 8; ++n) EXPECT_TRUE(contains(r.out, "node=" + std::to_string(n) + "\n")) << n;
}

TEST_F(ResultsPostgres, NewerSchemaAndUnreachableServerAreRefusedInOneLine) {
  const auto db = fresh_postgres_database(*server_, "newer");
  postgres_execute(db,
                   "CREATE TABLE ironbench_schema(application TEXT PRIMARY KEY, version INTEGER NOT NULL);"
                   "INSERT INTO ironbench_schema VALUES('ironbench results', 99)");
  const std::string unreachable = "postgresql://bench:hunter2@127.0.0.1:1/results";
  for (const auto& [args, expected] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"results", "list", "--db", db}, "schema version 99, newer than this build"},
           {{"run", "stream", "--device", "cpu", "--axis", "size=1M", "--db", db}, "newer than this build"},
           {{"results", "list", "--db", unreachable}, "cannot connect to results database postgresql://bench:***@"},
           {{"results", "list", "--db", "mysql://root:hunter2@db/x"}, "unknown kind of store"}}) {
    const auto r = ironbench(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(contains(r.err, expected)) << r.err;
  }
  EXPECT_FALSE(contains(printed_, "hunter2"));
  EXPECT_FALSE(contains(printed_, server_->password));
}

}  // namespace
}  // namespace ironbench::testing
