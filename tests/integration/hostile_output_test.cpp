// What ironbench writes, under hostile but realistic use: output names that are devices, FIFOs,
// symbolic links and a shell's process substitution; bytes that are not UTF-8 in a tag and in
// a results directory; secrets on the command line, which no output may hold.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> quick_stream = {"run",        "stream", "--device",     "cpu",      "--axis",
                                               "size=1M",    "--axis", "kernel=triad", "--warmup", "0",
                                               "--min-time", "0",      "--max-time",   "0.2s",     "-q"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(OutputTargets, FifosLinksAndDevicesAreWrittenWhereTheyAre) {
  temp_dir dir;
  fs::create_directory(dir / "real");
  const auto link = (dir / "link.json").string();
  fs::create_symlink("real/run.json", link);
  const auto fifo = (dir / "csv.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader of the FIFO, bounded: were the FIFO replaced, it would wait for a writer forever.
  const auto reader = start_program("timeout", {"60", "cat", fifo});
  const auto r = run_ironbench(with(quick_stream, {"--no-save", "--json", link, "--csv", fifo, "--md", "/dev/null"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto read = wait_for(reader);
  EXPECT_EQ(read.exit_code, 0) << "the FIFO's reader never saw a writer";
  EXPECT_NE(read.out.find("benchmark"), std::string::npos) << read.out;
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode)) << "the FIFO became a regular file";
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode)) << "/dev/null was replaced";
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a file";
  const auto document = json::parse(read_file((dir / "real/run.json").string()), nullptr, false);
  ASSERT_FALSE(document.is_discarded());
  EXPECT_EQ(document.at("cases").size(), 1u);
  EXPECT_TRUE(fs::is_empty(dir / "real") == false && !fs::exists(fifo + ".partial"));
}

TEST(OutputTargets, DevStdoutRedirectedToAFileKeepsTheConsoleLines) {
  // The test harness sends standard output to a file: /dev/stdout names a regular file here.
  auto args = with(quick_stream, {"--no-save", "--json", "/dev/stdout"});
  args.erase(std::find(args.begin(), args.end(), "-q"));
  const auto r = run_ironbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The run document first (outputs are written before the table is printed), whole, then
  // the console's table after it: neither overwrote the other.
  const auto table = r.out.find("stream on cpu");
  ASSERT_NE(table, std::string::npos) << "the console's lines were lost:\n" << r.out;
  std::istringstream text(r.out);
  json document;
  ASSERT_NO_THROW(text >> document) << r.out;  // the first JSON value of the output, whole
  EXPECT_EQ(document.at("cases").size(), 1u);
  EXPECT_LT(static_cast<std::size_t>(text.tellg()), table);
}

TEST(OutputTargets, AShellsProcessSubstitutionGetsTheReport) {
  if (!have_program("bash")) GTEST_SKIP() << "no bash";
  temp_dir dir;
  const auto received = (dir / "received.json").string();
  std::string command = shell_quoted(ironbench_binary());
  for (const auto& a : with(quick_stream, {"--no-save"})) command += " " + shell_quoted(a);
  // bash names the pipe /dev/fd/N (a link to "pipe:[...]"); `wait $!` waits for its cat.
  command += " --json >(cat > " + shell_quoted(received) + "); code=$?; wait $!; exit $code";
  const auto r = run_program("bash", {"-c", command});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto document = json::parse(read_file(received), nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << read_file(received);
  EXPECT_EQ(document.at("cases").size(), 1u);
}

TEST(InvalidUtf8, ATagAndAResultsDirectoryNotInUtf8LoseNothing) {
  temp_dir dir;
  const auto db = (dir / "results.db").string();
  const auto saved = (dir / "saved-\xff\xfe").string();
  const auto r = run_ironbench(with(quick_stream, {"--tag", "site=lab-\xff", "--results-dir", saved, "--db", db,
                                                   "--json", (dir / "run.json").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto document = json::parse(read_file((dir / "run.json").string()), nullptr, false);
  ASSERT_FALSE(document.is_discarded());
  EXPECT_EQ(document.at("tags").at("site"), "lab-\xEF\xBF\xBD");  // U+FFFD for the byte
  EXPECT_EQ(document.at("cases").size(), 1u);
  EXPECT_TRUE(fs::is_directory(saved));
  EXPECT_FALSE(fs::is_empty(saved)) << "the run's JSON file was not saved";
  const auto listed = run_ironbench({"results", "list", "--db", db});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("stream"), std::string::npos) << listed.out;
  const auto shown = run_ironbench({"results", "show", "1", "--db", db, "--format", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_FALSE(json::parse(shown.out, nullptr, false).is_discarded());
}

// Every file under `root` (the database's bytes included) and every text given: none may
// hold `secret`.
void expect_nowhere(const std::string& secret, const fs::path& root, const std::vector<std::string>& texts) {
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    EXPECT_EQ(read_file(entry.path().string()).find(secret), std::string::npos)
        << secret << " is in " << entry.path().string();
  }
  for (const auto& text : texts) EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in:\n" << text;
}

TEST(Secrets, APlantedSecretReachesNoOutput) {
  sim_process sim;
  temp_dir dir;
  const auto db = (dir / "results.db").string();
  const auto base = "http://planted-user:planted-password@127.0.0.1:" + std::to_string(sim.port());
  const auto r = run_ironbench({"serve",
                                "--base-url",
                                base,
                                "--header",
                                "X-Api-Key: planted-header-value",
                                "--header=Authorization: Bearer planted-bearer",
                                "--num-prompts",
                                "4",
                                "--max-concurrency",
                                "2",
                                "--random-input-len",
                                "8",
                                "--random-output-len",
                                "4",
                                "--max-lateness-ms",
                                "1000",
                                "--result-dir",
                                (dir / "vllm").string(),
                                "--save-detailed",
                                "--db",
                                db,
                                "--results-dir",
                                (dir / "saved").string(),
                                "--json",
                                (dir / "run.json").string(),
                                "--csv",
                                (dir / "run.csv").string(),
                                "--md",
                                (dir / "run.md").string(),
                                "--tag",
                                "env=test"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto document = json::parse(read_file((dir / "run.json").string()));
  const auto& point = document.at("cases").at(0);
  const auto vllm = json::parse(point.at("notes").at("result").get<std::string>());
  EXPECT_EQ(vllm.at("completed"), 4) << "the URL without its credentials did not reach the server";
  const auto argv = document.at("argv").dump();
  EXPECT_NE(argv.find("X-Api-Key: <redacted>"), std::string::npos) << argv;
  EXPECT_NE(argv.find("http://<redacted>@127.0.0.1"), std::string::npos) << argv;

  std::vector<std::string> texts = {r.out, r.err};
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"results", "list", "--db", db},
           {"results", "show", "1", "--db", db},
           {"results", "show", "1", "--db", db, "--format", "json"},
           {"results", "show", "1", "--db", db, "--format", "markdown"},
           {"results", "export", "1", "--db", db, "-o", (dir / "exported.json").string()},
           {"report", "1", "--db", db, "-o", (dir / "report.html").string()},
           {"compare", "1", "1", "--db", db}}) {
    const auto shown = run_ironbench(args);
    EXPECT_EQ(shown.exit_code, 0) << args[0] << " " << args[1] << ": " << shown.err;
    texts.push_back(shown.out + shown.err);
  }
  ASSERT_TRUE(fs::exists(dir / "report.html"));
  for (const char* secret : {"planted-password", "planted-user", "planted-header-value", "planted-bearer"}) {
    expect_nowhere(secret, dir.path(), texts);
  }
}

}  // namespace
}  // namespace ironbench::testing
