// The results store, compare and the HTML report through the real binary; the report is
// rendered by headless Chromium, which must find every chart drawn and no injected script run.
// The ResultsCli tests run on both back ends (store_backends.hpp): an SQLite file and a fresh
// database of the fixture's PostgreSQL server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "core/json.hpp"
#include "process.hpp"
#include "store_backends.hpp"

namespace ironbench::testing {
namespace {

const std::vector<std::string> quick = {"--warmup", "0", "--min-time", "0", "--max-time", "0.2s", "-q"};

struct temp_store {
  std::string dir = make_temp_dir("ironbench_store_");
  std::string db = dir + "/results.db";
};

process_result ironbench(const std::vector<std::string>& args) { return run_ironbench(args); }

// The store tests on both back ends: store(name) is a temporary folder and a store of the
// test's back end with no database in it yet.
class ResultsCli : public store_backend_test {
 protected:
  [[nodiscard]] temp_store store(const std::string& name) const {
    temp_store s;
    s.db = fresh_store(s.db, name);
    return s;
  }
};
IRONBENCH_STORE_BACKENDS(ResultsCli);

std::string measure(const temp_store& s, const std::string& tag) {
  std::vector<std::string> args = {"run",
                                   "gemm",
                                   "stream",
                                   "--device",
                                   "cpu",
                                   "--axis",
                                   "gemm:M=64,128",
                                   "--axis",
                                   "dtype=fp64",
                                   "--axis",
                                   "stream:size=1M,4M",
                                   "--axis",
                                   "kernel=triad",
                                   "--results-dir",
                                   s.dir + "/saved",
                                   "--db",
                                   s.db,
                                   "--tag",
                                   tag};
  args.insert(args.end(), quick.begin(), quick.end());
  const auto r = ironbench(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  static const std::regex stored(R"(stored: run (\d+) in )");
  EXPECT_TRUE(std::regex_search(r.out, m, stored)) << r.out;
  return m.size() > 1 ? m[1].str() : "";
}

TEST_P(ResultsCli, StoresListsComparesExportsAndDeletes) {
  const auto s = store("cli");
  const auto a = measure(s, "env=baremetal");
  const auto b = measure(s, "env=vm");
  ASSERT_NE(a, b);

  auto r = ironbench({"results", "list", "--db", s.db, "--tag", "env=vm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("env=vm"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("env=baremetal"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 run(s)"), std::string::npos) << r.out;

  r = ironbench({"compare", "env=baremetal", "env=vm", "--db", s.db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* expected : {"dtype=fp64 M=64", "size=1048576 kernel=triad", "geometric mean speedup", "speedup"}) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << " missing in\n" << r.out;
  }
  r = ironbench({"compare", a, b, "--db", s.db, "--format", "markdown", "--price-per-hour", "2.5,3.0"});
  EXPECT_EQ(r.exit_code, 2) << "two prices in one value are not a price";
  r = ironbench(
      {"compare", a, b, "--db", s.db, "--format", "markdown", "--price-per-hour", "2.5", "--price-per-hour", "3.0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## Cost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| gemm"), std::string::npos) << r.out;

  r = ironbench({"results", "export", a, "--db", s.db, "-o", s.dir + "/a.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto exported = json::parse(read_file(s.dir + "/a.json"));
  EXPECT_EQ(exported.at("tags").at("env"), "baremetal");
  // A file and a stored run compare like two stored runs.
  r = ironbench({"compare", s.dir + "/a.json", b, "--db", s.db});
  EXPECT_EQ(r.exit_code, 0) << r.err;

  r = ironbench({"results", "delete", a, "--db", s.db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ironbench({"results", "show", a, "--db", s.db});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no run " + a), std::string::npos) << r.err;
}

TEST_P(ResultsCli, BadSidesGetOneLineErrors) {
  const auto s = store("bad_sides");
  const auto a = measure(s, "env=x");
  const std::string foreign = s.dir + "/foreign.json";
  std::ofstream(foreign) << R"({"name": "something else"})";
  const std::string corrupt = s.dir + "/corrupt.json";
  std::ofstream(corrupt) << R"({"schema_version": 1, "cases": [)";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"compare", a}, "At least 2 required"},
      {{"compare", a, "999"}, "no run 999"},
      {{"compare", a, foreign}, "foreign.json"},
      {{"compare", a, corrupt}, "not valid JSON"},
      {{"compare", a, "env=nowhere"}, "no stored run carries env=nowhere"},
      {{"compare", a, "ref:no-such-baseline"}, "no-such-baseline"},
      {{"compare", a, "nonsense"}, "not a run id"},
      {{"compare", a, a, "--min-difference", "150%"}, "--min-difference"},
      {{"compare", a, a, "--price-per-hour", "2.5/gpu"}, "--tag gpus=N"},
      {{"results", "list", "--since", "last week"}, "--since"},
      {{"report", foreign}, "foreign.json"},
  };
  for (const auto& [args, expected] : cases) {
    auto full = args;
    full.insert(full.end(), {"--db", s.db});
    const auto r = ironbench(full);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << "expected '" << expected << "' in: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST_P(ResultsCli, ComparesWithAPublishedBaseline) {
  const auto dir = make_temp_dir("ironbench_ref_");
  const auto db = fresh_store(dir + "/r.db", "baseline");
  // A run shaped like a GPU gemm run at the published shapes; compare aligns on dtype and shape.
  json run = {
      {"schema_version", 1}, {"start_time", "2026-01-01T00:00:00Z"}, {"end_time", ""},        {"status", "valid"},
      {"status_reason", ""}, {"host", {{"hostname", "node"}}},       {"cases", json::array()}};
  for (const auto& [m, tflops] : std::vector<std::pair<int, double>>{{4096, 700}, {8192, 1100}}) {
    run["cases"].push_back({{"benchmark", "gemm"},
                            {"device", "cuda:0"},
                            {"status", "valid"},
                            {"params", {{"provider", "cublaslt"}, {"dtype", "fp16"}, {"M", m}, {"N", m}, {"K", m}}},
                            {"metrics", json::array({{{"name", "tflops"}, {"value", tflops}, {"unit", "TFLOP/s"}}})}});
  }
  std::ofstream(dir + "/gpu.json") << run.dump();
  const auto list = ironbench({"results", "baselines"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("ref:mi350x-training"), std::string::npos) << list.out;
  const auto r = ironbench({"compare", "ref:mi350x-training", dir + "/gpu.json", "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dtype=fp16 M=8192 N=8192 K=8192"), std::string::npos) << r.out;
  // Published for 8192 fp16: 1019 (a 20-iteration loop) and 1053 (do_bench): the best is kept.
  EXPECT_NE(r.out.find("1053 (best of 2)"), std::string::npos) << "the published 8192 fp16 figure is missing:\n"
                                                               << r.out;
  EXPECT_NE(r.out.find("1.045"), std::string::npos) << "1100 / 1053 = 1.0446:\n" << r.out;
}

// A run with a case of every charted kind, and markup in every string that reaches the page.
json hostile_run() {
  const std::string script = "<script>document.body.dataset.pwned='1'</script>";
  const std::string closing = "</script><script>document.body.dataset.pwned='2'</script>";
  json cases = json::array();
  auto add = [&](const std::string& benchmark, json params, json metrics, const std::string& device = "cuda:0") {
    cases.push_back(
        {{"benchmark", benchmark}, {"device", device}, {"status", "valid"}, {"params", params}, {"metrics", metrics}});
  };
  auto metric = [](const std::string& name, double value, const std::string& unit) {
    return json{{"name", name}, {"value", value}, {"unit", unit}};
  };
  for (int size : {1 << 20, 1 << 24, 1 << 28}) {
    add("stream", {{"dtype", "fp64"}, {"size", size}, {"kernel", "triad"}},
        json::array({metric("bandwidth", 1000.0 + size / 1e6, "GB/s")}));
    add("collectives", {{"collective", "all_reduce"}, {"size", size}, {"placement", "out-of-place"}},
        json::array({metric("busbw", 100.0 + size / 1e7, "GB/s")}));
  }
  add("gemm", {{"dtype", "bf16"}, {"M", 8192}, {"N", 8192}, {"K", 8192}},
      json::array({metric("tflops", 700, "TFLOP/s")}));
  for (int c : {4, 16, 64}) {
    json result = {{"model_id", script}, {"p99_ttft_ms", 100.0 + c}, {"p99_itl_ms", 30.0 + c}};
    cases.push_back(
        {{"benchmark", "serve"},
         {"device", "http://host:8000" + closing},
         {"status", "valid"},
         {"params", {{"max_concurrency", c}, {"request_rate", "inf"}, {"model", script}}},
         {"metrics", json::array({metric("output_throughput", 100.0 * c, "tok/s"),
                                  metric("median_itl_ms", 10.0 + c, "ms"), metric("median_ttft_ms", 50.0 + c, "ms")})},
         {"notes", {{"result", result.dump()}}}});
  }
  cases.back()["notes"]["saturation"] = "output 6400 tok/s, +1.0% over the best before" + script;
  // The last serve point's timeline: client throughput windows and the server's scrapes.
  cases.back()["series"] = {{"client_t_s", {1, 2, 3}},
                            {"client_output_tokens_per_s", {900, 1500, 1400}},
                            {"server_t_s", {0, 1, 2, 3}},
                            {"server_running_requests", {0, 40, 64, 60}},
                            {"server_waiting_requests", {0, 3, nullptr, 1}}};
  add("train_gpt", {{"model", "small"}, {"batch", 32}}, json::array({metric("tokens_per_s", 12345, "tokens/s")}));
  cases.back()["series"] = {{"loss", {10.9, 9.5, 8.25, 7.5}}};
  json samples = json::array();
  for (int i = 0; i < 20; ++i)
    samples.push_back({{"t_s", i * 0.05}, {"power_w", 300.0 + i}, {"temperature_c", 50.0 + i}});
  return {{"schema_version", 1},
          {"start_time", "2026-01-01T00:00:00Z"},
          {"end_time", "2026-01-01T00:01:00Z"},
          {"status", "valid"},
          {"status_reason", ""},
          {"tags", {{"env", script}}},
          {"host", {{"hostname", script}, {"os", {{"pretty_name", closing}}}}},
          {"cases", cases},
          {"telemetry", json::array({{{"case", 6}, {"device", "cuda:0"}, {"samples", samples}}})}};
}

TEST(HtmlReport, ChromiumDrawsEveryChartAndRunsNoInjectedScript) {
  if (!have_chromium())
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it where Debian packages it)";
  const auto dir = make_temp_dir("ironbench_html_");
  std::ofstream(dir + "/hostile.json") << hostile_run().dump();
  auto r = ironbench({"report", dir + "/hostile.json", "-o", dir + "/report.html", "--db", dir + "/r.db"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = read_file(dir + "/report.html");
  EXPECT_EQ(html.find("<script>document.body"), std::string::npos) << "unescaped markup in the page";
  EXPECT_EQ(html.find("src=\"http"), std::string::npos) << "the report must not load anything";

  const auto url = "file://" + dir + "/report.html";
  const std::vector<std::string> common = {"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                           "--window-size=1280,4000"};
  auto args = common;
  args.insert(args.end(), {"--dump-dom", url});
  const auto dom = wait_for(start_program("chromium", args));
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      dom.out, m, std::regex(R"re(<body data-charts="(\d+)" data-charts-painted="(\d+)" data-charts-blank="(\d+)")re")))
      << "the page's script did not finish:\n"
      << dom.out.substr(0, 2000);
  // stream, collectives, gemm, serve (throughput, trade-off, percentiles, timeline), training
  // tokens/s and loss, power, temperature
  EXPECT_EQ(std::stoi(m[1].str()), 11) << dom.out.substr(0, 400);
  EXPECT_EQ(m[2].str(), m[1].str()) << "every chart must have painted pixels";
  EXPECT_EQ(m[3].str(), "0");
  EXPECT_EQ(dom.out.find("data-pwned"), std::string::npos) << "an injected script ran";
  EXPECT_NE(dom.out.find("&lt;script&gt;document.body.dataset.pwned"), std::string::npos)
      << "the host name is shown as text";

  // Keep a screenshot as a test artifact.
  const std::string artifacts = IRONBENCH_TEST_ARTIFACTS;
  std::filesystem::create_directories(artifacts);
  args = common;
  args.insert(args.end(), {"--screenshot=" + artifacts + "/html-report.png", url});
  const auto shot = wait_for(start_program("chromium", args));
  EXPECT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_GT(std::filesystem::file_size(artifacts + "/html-report.png"), 20000u);
}

TEST(HtmlReport, ComparisonOfTwoRealRunsOverlaysTheirCharts) {
  if (!have_chromium())
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it where Debian packages it)";
  temp_store s;
  const auto a = measure(s, "env=a");
  const auto b = measure(s, "env=b");
  auto r = ironbench({"compare", a, b, "--db", s.db, "--format", "html", "-o", s.dir + "/compare.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = read_file(s.dir + "/compare.html");
  EXPECT_NE(html.find("<h2>Comparison</h2>"), std::string::npos);
  const auto dom = wait_for(start_program(
      "chromium", {"--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + s.dir + "/compare.html"}));
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find(R"(data-charts="2" data-charts-painted="2" data-charts-blank="0")"), std::string::npos)
      << dom.out.substr(0, 600);
}

// The one-line error (with its newline) of a command that must exit 2.
std::string one_line_usage_error(const std::vector<std::string>& args) {
  const auto r = ironbench(args);
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 300u) << r.err.substr(0, 300);
  return r.err;
}

// A --tag value of 30,000 characters overflowed the stack of the pattern that read it (exit
// 139) on run, import and results list. Long values are labels like any other, and a long
// tag that is not KEY=VALUE is refused in one short line. (A single argument cannot exceed
// 128 KiB on Linux, so 120,000 characters is the longest a command line can carry.) One value
// does not compress: a PostgreSQL index entry holds at most about 2,700 bytes after compression.
TEST_P(ResultsCli, LongTagsAreLabelsNotCrashes) {
  const auto s = store("long_tags");
  std::mt19937 random(7);
  std::string scattered(30000, ' ');
  for (auto& c : scattered) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 25)(random));
  for (const auto& value : {std::string(30000, 'v'), std::string(120000, 'v'), scattered}) {
    const auto tag = "long=" + value;
    auto args = std::vector<std::string>{"run",           "stream",         "--device",    "cpu",        "--axis",
                                         "size=1M",       "--axis",         "kernel=copy", "--min-time", "0",
                                         "--max-time",    "0.05s",          "-q",          "--db",       s.db,
                                         "--results-dir", s.dir + "/saved", "--tag",       tag};
    auto r = ironbench(args);
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
    r = ironbench({"import", "perftest", std::string(IRONBENCH_TEST_DATA) + "/perftest/write_a_gbits.txt", "--db", s.db,
                   "--results-dir", s.dir + "/saved", "--tag", tag});
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
    r = ironbench({"results", "list", "--db", s.db, "--tag", tag});
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
    EXPECT_NE(r.out.find("2 run(s) in " + shown(s.db)), std::string::npos) << r.out.substr(r.out.size() - 200);
    // The value as a key.
    r = ironbench({"import", "perftest", std::string(IRONBENCH_TEST_DATA) + "/perftest/write_a_gbits.txt", "--db", s.db,
                   "--results-dir", s.dir + "/saved", "--tag", value + "=k"});
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 300);
    r = ironbench({"results", "list", "--db", s.db, "--tag", value + "=k"});
    EXPECT_NE(r.out.find("1 run(s) in " + shown(s.db)), std::string::npos) << r.out.substr(r.out.size() - 200);
    EXPECT_NE(one_line_usage_error({"results", "list", "--db", s.db, "--tag", value}).find("is not KEY=VALUE"),
              std::string::npos);
    EXPECT_NE(one_line_usage_error({"run", "stream", "--device", "cpu", "--no-save", "--tag", value + " =x"})
                  .find("is not KEY=VALUE"),
              std::string::npos);
  }
}

// --tag a=1 --tag a=2 kept one value and dropped the other in silence. A run carries one
// value per key, so labelling a run with two is a usage error naming the key, on every
// command that labels runs, and so is a filter no run can match.
TEST_P(ResultsCli, OneTagKeyWithTwoValuesIsAUsageError) {
  const auto s = store("tag_twice");
  const std::string expected =
      "ironbench: error: --tag env is given twice (env=vm, env=baremetal): a run carries one value per key\n";
  const std::vector<std::string> twice = {"--tag", "env=vm", "--tag", "gpu=a", "--tag", "env=baremetal"};
  const auto with_twice = [&](std::vector<std::string> args) {
    args.insert(args.end(), twice.begin(), twice.end());
    return args;
  };
  EXPECT_EQ(one_line_usage_error(with_twice({"run", "stream", "--device", "cpu", "--axis", "size=1M", "--min-time", "0",
                                             "--max-time", "0.05s", "--db", s.db, "--results-dir", s.dir})),
            expected);
  EXPECT_EQ(one_line_usage_error(with_twice({"serve", "--base-url", "http://127.0.0.1:9", "--model", "m",
                                             "--num-prompts", "1", "--db", s.db, "--results-dir", s.dir})),
            expected);
  EXPECT_EQ(one_line_usage_error(with_twice({"results", "list", "--db", s.db})), expected);
  EXPECT_EQ(one_line_usage_error({"compare", "env=vm,env=baremetal", "env=vm", "--db", s.db}),
            "ironbench: error: selector env is given twice (env=vm, env=baremetal): a run carries one value per "
            "key\n");
  if (sqlite()) {
    EXPECT_FALSE(std::filesystem::exists(s.db)) << "a refused command created the database";
  } else {
    EXPECT_EQ(postgres_tables(s.db), 0u) << "a refused command created the store's tables";
  }
}

// Reading the store writes nothing: a store with no database lists no runs and is not created
// (no SQLite file nor its folder, no table on the server), and listing, showing and comparing
// leave it as it was (the SQLite file's bytes and time; every row of the server's tables).
TEST_P(ResultsCli, ReadingTheStoreWritesNothing) {
  const auto s = store("reading");
  const auto absent = sqlite() ? s.dir + "/nowhere/results.db" : fresh_store("", "reading_absent");
  auto r = ironbench({"results", "list", "--db", absent});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 run(s) in " + shown(absent)), std::string::npos) << r.out;
  EXPECT_NE(one_line_usage_error({"results", "show", "1", "--db", absent}).find("no run 1 in " + shown(absent)),
            std::string::npos);
  EXPECT_NE(one_line_usage_error({"compare", "1", "2", "--db", absent}).find("no run 1 in " + shown(absent)),
            std::string::npos);
  if (sqlite()) {
    EXPECT_FALSE(std::filesystem::exists(s.dir + "/nowhere")) << "reading created the database's folder";
  } else {
    EXPECT_EQ(postgres_tables(absent), 0u) << "reading created the store's tables";
  }

  const auto a = measure(s, "env=vm");
  const auto contents = [&] { return sqlite() ? read_file(s.db) : postgres_contents(s.db); };
  const auto before = contents();
  const auto time = sqlite() ? std::filesystem::last_write_time(s.db) : std::filesystem::file_time_type{};
  for (const std::vector<std::string>& args : {std::vector<std::string>{"results", "list"},
                                               {"results", "show", a},
                                               {"compare", a, a},
                                               {"report", a, "-o", "-"},
                                               {"results", "export", a, "-o", s.dir + "/a.json"}}) {
    auto full = args;
    full.insert(full.end(), {"--db", s.db});
    r = ironbench(full);
    EXPECT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
  }
  EXPECT_EQ(contents(), before);
  if (sqlite()) {
    EXPECT_EQ(std::filesystem::last_write_time(s.db), time);
  }
}

std::vector<std::vector<std::string>> reading_commands(const std::string& id) {
  return {{"results", "list"}, {"results", "show", id}, {"compare", id, id}, {"report", id, "-o", "-"}};
}

// A store the user may only read is listed, shown, compared and reported. On SQLite that is the
// file's mode (0444 in a folder of mode 0555; root ignores file modes, so the commands run as
// nobody with setpriv), on PostgreSQL a role granted nothing but SELECT on the store's tables.
TEST_P(ResultsCli, ADatabaseThatMayOnlyBeReadIsListed) {
  if (postgresql()) {
    const auto s = store("read_only");
    const auto a = measure(s, "env=vm");
    static int roles = 0;
    const auto role = "ib_reader_" + std::to_string(getpid()) + "_" + std::to_string(roles++);
    postgres_execute(s.db, "CREATE ROLE " + role + " LOGIN PASSWORD 'reader-secret'; GRANT SELECT ON ALL TABLES IN " +
                               "SCHEMA public TO " + role);
    const auto secret = ":" + server_->password + "@";
    ASSERT_NE(s.db.find(secret), std::string::npos);
    const auto reader = "postgresql://" + role + ":reader-secret@" + s.db.substr(s.db.find(secret) + secret.size());
    for (const auto& args : reading_commands(a)) {
      auto full = args;
      full.insert(full.end(), {"--db", reader});
      const auto r = ironbench(full);
      EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[1] << ": " << r.err;
      if (args[1] == "list") {
        EXPECT_NE(r.out.find("1 run(s) in postgresql://" + role + ":***@"), std::string::npos) << r.out;
      }
      EXPECT_EQ(r.out.find("reader-secret"), std::string::npos);
    }
    postgres_execute(s.db, "DROP OWNED BY " + role + "; DROP ROLE " + role);
    return;
  }
  if (geteuid() != 0 || !have_program("setpriv")) GTEST_SKIP() << "needs root and setpriv to run as nobody";
  const auto check =
      run_program("setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups", ironbench_binary(), "version"});
  if (check.exit_code != 0) GTEST_SKIP() << "nobody cannot run " << ironbench_binary() << ": " << check.err;
  temp_store s;
  const auto a = measure(s, "env=vm");
  namespace fs = std::filesystem;
  fs::permissions(s.dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(s.db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto folder_readable = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(s.dir, folder_readable);
  for (const auto& args : reading_commands(a)) {
    std::vector<std::string> full = {"--reuid=65534", "--regid=65534", "--clear-groups", ironbench_binary()};
    full.insert(full.end(), args.begin(), args.end());
    full.insert(full.end(), {"--db", s.db});
    const auto r = run_program("setpriv", full);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[1] << ": " << r.err;
    if (args[1] == "list") {
      EXPECT_NE(r.out.find("1 run(s) in " + s.db), std::string::npos) << r.out;
    }
  }
  fs::permissions(s.dir, fs::perms::owner_all);
}

}  // namespace
}  // namespace ironbench::testing
