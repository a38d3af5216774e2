// core/bounded_file's reader in pieces: lines within a limit, a pipe waited on without blocking
// a signal, and a file's limit kept while it is read.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "core/bounded_file.hpp"
#include "temp_dir.hpp"
#include "usage_message.hpp"

namespace ironbench::core {
namespace {

using testing::temp_dir;
using testing::usage_message;

bool reader_contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(BoundedReader, LinesComeWithoutTheirEndsAndTheLastOneWithoutANewline) {
  temp_dir dir;
  const auto path = dir.write("lines.txt", "one\r\ntwo\n\nthree").string();
  bounded_reader reader(path, file_kinds::dataset);
  std::string line;
  std::vector<std::string> lines;
  while (reader.next_line(line)) lines.push_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "", "three"}));
  EXPECT_EQ(reader.line_number(), 4U);
}

// A 300 MB one-line file took 700 MB: a line is refused once it passes its limit, before more
// than the limit and one read (64 KiB) of it is kept.
TEST(BoundedReader, ALineLongerThanTheLimitIsRefusedNamingIt) {
  temp_dir dir;
  const auto path = dir.write("long.jsonl", "{\"prompt\": \"a\"}\n" + std::string(300000, 'x') + "\n").string();
  bounded_reader reader(path, file_kinds::dataset);
  std::string line;
  ASSERT_TRUE(reader.next_line(line));
  const auto message = usage_message([&] { (void)reader.next_line(line, 100000); });
  EXPECT_EQ(message, "cannot read --dataset-path file '" + path +
                         "': line 2 holds more than the 100000 bytes a line "
                         "may be");
}

TEST(BoundedReader, ADatasetIsARegularFileOnly) {
  temp_dir dir;
  const auto fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
           {fifo, "it is a named pipe (FIFO); a --dataset-path file is read from a regular file"},
           {"/dev/zero", "it is a character device, not a regular file"},
           {dir.str(), "it is a directory, not a file"}}) {
    const auto started = std::chrono::steady_clock::now();
    const auto message = usage_message([&] { bounded_reader reader(path, file_kinds::dataset); });
    EXPECT_EQ(message, "cannot read --dataset-path file '" + path + "': " + why);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5)) << "a hang guard: refused at once";
  }
}

extern "C" void note_signal(int) {}

// A FIFO where a stream is meant is waited on with poll(): a signal with a handler ends the
// wait even when the handler was installed with SA_RESTART (as std::signal does, and as
// ironbench's SIGINT and SIGTERM handlers are), where a blocking open() would restart and wait
// for a writer forever. In a child process, so that a reader that hangs fails the test.
TEST(BoundedReader, ASignalEndsTheWaitForAPipesWriter) {
  temp_dir dir;
  const auto fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    std::signal(SIGINT, note_signal);  // BSD semantics: SA_RESTART
    try {
      constexpr file_kind piped{"piped output", 1000, true};
      (void)read_bounded_file(fifo, piped);
    } catch (const read_interrupted& e) {
      ::_exit(reader_contains(e.what(), "interrupted (SIGINT or SIGTERM) while it waited for its writer") ? 42 : 2);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(4);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the wait (a later signal still ends it)
  ::kill(reader, SIGINT);
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(reader, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (::waitpid(reader, &status, WNOHANG) == 0) {
    ::kill(reader, SIGKILL);
    ::waitpid(reader, &status, 0);
    FAIL() << "the reader still waited 5 s after SIGINT";
  }
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

TEST(BoundedReader, APipeStillReadsWhatItsWriterWrites) {
  temp_dir dir;
  const auto fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // after the reader waits
    FILE* out = std::fopen(fifo.c_str(), "w");
    if (out == nullptr) return;
    std::fputs("line one\nline two\n", out);
    std::fclose(out);
  });
  constexpr file_kind piped{"piped output", 1000, true};
  EXPECT_EQ(read_bounded_file(fifo, piped), "line one\nline two\n");
  writer.join();
}

}  // namespace
}  // namespace ironbench::core
