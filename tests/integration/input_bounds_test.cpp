// Hostile inputs through the real binary (docs/reliability.md): a --dataset-path that is a FIFO
// nobody writes, /dev/zero or one huge line; a folder of large runs to import; recipe values
// past their bounds; a node name that a Slurm hostlist or a shell would misread. Each is one
// line and exit 2 (or, for the node name, a name printed so that nothing reads it otherwise; for
// the import, every run stored), at once and in bounded memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

bool input_contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct measured_run {
  process_result result;
  double seconds = 0;
  long max_rss_mib = 0;  ///< the process's peak resident memory
};

measured_run run_measured(const std::vector<std::string>& args) {
  const auto started = std::chrono::steady_clock::now();
  const auto process = start_ironbench(args);
  int status = 0;
  rusage usage{};
  ::wait4(process.pid, &status, 0, &usage);
  measured_run m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  m.max_rss_mib = usage.ru_maxrss / 1024;
  m.result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  m.result.out = read_file(process.out_path);
  m.result.err = read_file(process.err_path);
  return m;
}

std::vector<std::string> serve_args(const std::string& dataset, const std::string& path) {
  // No server: the dataset is read before a request is sent.
  return {"serve", "--no-save",      "--base-url", "http://127.0.0.1:1", "--dataset-name",
          dataset, "--dataset-path", path,         "--num-prompts",      "4"};
}

// A FIFO blocked in open() and ignored SIGINT and SIGTERM (SIGKILL after 10 minutes); /dev/zero
// read 1.2 GB before "has no prompts": both refused before they are opened.
TEST(DatasetPath, AFifoOrADeviceIsRefusedInOneLineAtOnce) {
  temp_dir dir;
  const auto fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const char* dataset : {"custom", "trace", "sharegpt"}) {
    for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
             {fifo, "it is a named pipe (FIFO); a --dataset-path file is read from a regular file"},
             {"/dev/zero", "it is a character device, not a regular file"}}) {
      const auto m = run_measured(serve_args(dataset, path));
      EXPECT_EQ(m.result.exit_code, 2) << dataset << " " << path << ": " << m.result.err;
      EXPECT_EQ(m.result.err, "ironbench: error: cannot read --dataset-path file '" + path + "': " + why + "\n");
      // A hang guard: the old reader never ended on the FIFO and read /dev/zero for minutes.
      EXPECT_LT(m.seconds, 60) << dataset << " " << path;
    }
  }
}

// A 300 MB one-line file took 700 MB: the line is refused once it passes 16 MiB, with at most
// that much of it in memory.
TEST(DatasetPath, AHugeLineIsRefusedInBoundedMemory) {
  if (IRONBENCH_SANITIZED_BUILD)
    GTEST_SKIP() << "peak memory is judged in the release build: AddressSanitizer's shadow memory and its "
                    "quarantine of freed blocks keep memory resident that the program gave back";
  temp_dir dir;
  const auto path = (dir.path() / "one-line.jsonl").string();
  {
    std::ofstream out(path, std::ios::binary);
    const std::string chunk(1 << 20, 'x');
    out << "{\"prompt\": \"";
    for (int i = 0; i < 200; ++i) out << chunk;  // 200 MiB
  }
  // The binary's own peak before it reads anything (its libraries and tables: about 230 MiB in
  // a release build), which the reading adds to.
  const auto baseline = run_measured({"--version"});
  ASSERT_EQ(baseline.result.exit_code, 0) << baseline.result.err;
  for (const char* dataset : {"custom", "trace"}) {
    const auto m = run_measured(serve_args(dataset, path));
    EXPECT_EQ(m.result.exit_code, 2) << m.result.err;
    EXPECT_EQ(m.result.err, "ironbench: error: cannot read --dataset-path file '" + path +
                                "': line 1 holds more than the 16 MiB a line may be\n");
    // The old reader held the whole line and its JSON: about 2.3 times the file (460 MiB over
    // the baseline); the bounded one at most the 16 MiB line and its buffers (2 MiB measured).
    EXPECT_LT(m.max_rss_mib - baseline.max_rss_mib, 64)
        << dataset << ": peak resident memory " << m.max_rss_mib << " MiB, baseline " << baseline.max_rss_mib << " MiB";
  }
}

// `results gather` read every source of a folder before storing anything, at about 10 times
// each file's size (a 252 MB run file: 2.67 GB peak): now each run is stored as it is read, so
// a folder costs the memory of its largest run, a few times its size.
TEST(ResultsImportMemory, AFolderOfLargeRunsCostsTheMemoryOfItsLargestOne) {
  if (IRONBENCH_SANITIZED_BUILD)
    GTEST_SKIP() << "peak memory is judged in the release build: AddressSanitizer's shadow memory and its "
                    "quarantine of freed blocks keep memory resident that the program gave back";
  temp_dir dir;
  const auto node = dir.path() / "node";
  const auto measured = run_ironbench({"run", "stream", "--device", "cpu", "--axis", "size=1M", "--axis",
                                       "kernel=triad", "--warmup", "0", "--min-time", "0", "--max-time", "0.1s", "-q",
                                       "--results-dir", (node / "saved").string(), "--db", (node / "r.db").string()});
  ASSERT_EQ(measured.exit_code, 0) << measured.err;
  auto run = json::parse(read_file(std::filesystem::directory_iterator(node / "saved")->path().string()));
  const auto folder = dir.path() / "runs";
  std::filesystem::create_directories(folder);
  std::uintmax_t largest = 0;
  for (int k = 0; k < 3; ++k) {
    run["uuid"] = "0192abcd-0000-4000-8000-00000000000" + std::to_string(k);
    auto& samples = run["cases"][0]["time"]["samples"];
    samples = json::array();
    for (int i = 0; i < 1'500'000; ++i) samples.push_back(0.000123456789 + i * 1e-12);  // 25 MB of text
    const auto path = folder / ("run-" + std::to_string(k) + ".json");
    std::ofstream(path) << run.dump();
    largest = std::max(largest, std::filesystem::file_size(path));
  }
  const auto baseline = run_measured({"--version"});
  const auto m = run_measured({"results", "gather", folder.string(), "--db", (dir.path() / "all.db").string()});
  ASSERT_EQ(m.result.exit_code, 0) << m.result.err;
  EXPECT_TRUE(input_contains(m.result.out, "3 added")) << m.result.out;
  // Measured: 4.5 times the largest file over the baseline (three 34 MB runs, 151 MiB); the
  // three held at once took 3 times that at least, at the old cost 30 times.
  const auto largest_mib = static_cast<double>(largest) / (1 << 20);
  EXPECT_LT(static_cast<double>(m.max_rss_mib - baseline.max_rss_mib), 7 * largest_mib + 32)
      << "peak " << m.max_rss_mib << " MiB, baseline " << baseline.max_rss_mib << " MiB, largest run " << largest_mib
      << " MiB";
}

// A recipe's duration, repeat count and tag key are bounded: one line with file, line and
// column, exit 2, before anything starts.
TEST(RecipeValues, PastTheirBoundsAreRefusedBeforeAnythingStarts) {
  temp_dir dir;
  const auto recipe = (dir.path() / "r.yaml").string();
  const std::string head = "schema_version: 1\nname: bounds\n";
  const std::string step =
      "steps:\n  - command: {command: 'touch " + (dir.path() / "ran").string() + "', metrics: [{performance: true}]}\n";
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {head +
                "steps:\n  - command: {command: x, metrics: [{performance: true}], timeout: 99999999999999999999h}\n",
            "timeout '99999999999999999999h' is longer than the 168 h (a week) a recipe's duration may be"},
           {head + "repeat: 1000000000\n" + step, "repeat 1000000000 is more than the 1000 a recipe may ask for"},
           {head + "tags: {../../x: y}\n" + step, "'../../x' is not a tag name (letters, digits, '_', '-', '.')"}}) {
    std::ofstream(recipe) << text;
    for (const char* verb : {"plan", "run"}) {
      std::vector<std::string> args{"experiment", verb, recipe};
      if (std::string(verb) == "run") {  // plan takes no store: it writes nothing
        args.insert(args.end(),
                    {"--db", (dir.path() / "db").string(), "--results-dir", (dir.path() / "results").string()});
      }
      const auto r = run_ironbench(args);
      EXPECT_EQ(r.exit_code, 2) << verb << ": " << r.out << r.err;
      EXPECT_TRUE(input_contains(r.err, message)) << r.err;
      EXPECT_TRUE(input_contains(r.err, recipe + ":")) << "names the file: " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "ran")) << "nothing started";
}

// Under mpirun every node is named in --format slurm's output: a name that is no plain host
// name is printed %XX-escaped, so that no hostlist (`n[1-64],x` is 65 nodes) or shell
// (`$(touch ...)`) reading changes it.
TEST(ValidateNames, AHostileNodeNameIsEscapedInTheSlurmFormat) {
  if (!IRONBENCH_HAS_MPI) GTEST_SKIP() << "this build has no MPI";
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)";
  temp_dir dir;
  const auto touched = (dir.path() / "touched").string();
  const std::string name = "n[1-64],x;$(touch " + touched + ") `touch " + touched + "` |&<>*?!#~{a,b}";
  const auto r = run_program(
      "env", {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_mpi_yield_when_idle=1",
              "OMPI_MCA_btl=self,vader,tcp", "IRONBENCH_NODE_NAME=" + name, "mpirun", "--oversubscribe", "-x",
              "IRONBENCH_NODE_NAME", "-np", "2", ironbench_binary(), "validate", "--device", "cpu", "--no-save", "-q",
              "--format", "slurm"});
  ASSERT_NE(r.exit_code, 137) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::vector<std::string> nodes;
  while (std::getline(lines, line)) {
    const auto tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << r.out;
    nodes.push_back(line.substr(0, tab));
    const auto reason = line.substr(tab + 1);
    EXPECT_EQ(reason.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;=+-_/%()"),
              std::string::npos)
        << reason;
  }
  ASSERT_EQ(nodes.size(), 2U) << r.out << r.err;
  for (const auto& node : nodes) {
    EXPECT_EQ(node.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._%"),
              std::string::npos)
        << node;
    EXPECT_EQ(node.rfind("n%5B1-64%5D%2Cx%3B%24%28touch%20", 0), 0U) << node;
  }
  EXPECT_NE(nodes[0], nodes[1]) << "the second rank on the host is named apart";
  EXPECT_FALSE(std::filesystem::exists(touched));
}

}  // namespace
}  // namespace ironbench::testing
