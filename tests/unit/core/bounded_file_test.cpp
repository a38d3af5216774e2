// core/bounded_file: whole files read with a limit per kind; anything but a regular file (or a
// pipe where one is meant) refused at once, in one line, without reading or waiting.
#include "core/bounded_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "temp_dir.hpp"
#include "timed_check.hpp"
#include "usage_message.hpp"

namespace ironbench::core {
namespace {

using testing::temp_dir;
using testing::usage_message;

constexpr file_kind small{"small file", 16};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(BoundedFile, AFileWithinItsLimitIsReadWhole) {
  temp_dir dir;
  const auto path = dir.write("f.txt", std::string(16, 'x')).string();
  EXPECT_EQ(read_bounded_file(path, small), std::string(16, 'x'));
  const auto empty = dir.write("empty.txt", "").string();
  EXPECT_EQ(read_bounded_file(empty, small), "");
}

TEST(BoundedFile, AFileOverItsLimitIsRefusedNamingTheLimit) {
  temp_dir dir;
  const auto path = dir.write("f.txt", std::string(17, 'x')).string();
  const auto message = usage_message([&] { (void)read_bounded_file(path, small); });
  EXPECT_TRUE(
      contains(message, "cannot read small file '" + path + "': it holds more than the 16 bytes a small file may be"))
      << message;
}

TEST(BoundedFile, ADeviceThatNeverEndsIsRefusedWithoutReading) {
  const auto started = std::chrono::steady_clock::now();
  const auto message = usage_message([&] { (void)read_bounded_file("/dev/zero", file_kinds::recipe); });
  EXPECT_TRUE(contains(message, "'/dev/zero': it is a character device, not a regular file")) << message;
  // A hang guard (docs/testing.md, "Tests that judge time"): refused at once, not read.
  testing::expect_time_not_above("refusing /dev/zero",
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 0,
                                 1, "s");
}

TEST(BoundedFile, ADirectoryIsRefusedAsADirectory) {
  temp_dir dir;
  const auto message = usage_message([&] { (void)read_bounded_file(dir.str(), file_kinds::recipe); });
  EXPECT_TRUE(contains(message, "cannot read recipe '" + dir.str() + "': it is a directory")) << message;
}

TEST(BoundedFile, AMissingFileSaysWhy) {
  const auto message = usage_message([&] { (void)read_bounded_file("/nonexistent/x.yaml", file_kinds::recipe); });
  EXPECT_EQ(message, "cannot read recipe '/nonexistent/x.yaml': No such file or directory");
}

TEST(BoundedFile, AFifoIsRefusedAtOnceWhereNoStreamIsMeant) {
  temp_dir dir;
  const auto fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // Nobody writes: an open that waited would hang the test.
  const auto message = usage_message([&] { (void)read_bounded_file(fifo, file_kinds::recipe); });
  EXPECT_TRUE(contains(message, "it is a named pipe (FIFO); a recipe is read from a regular file")) << message;
}

TEST(BoundedFile, APipeIsReadWhereAStreamIsMeantAndStoppedAtTheLimit) {
  for (const std::size_t bytes : {std::size_t{10}, std::size_t{100000}}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t writer = ::fork();
    ASSERT_GE(writer, 0);
    if (writer == 0) {
      ::close(fds[0]);
      const std::string text(bytes, 'y');
      for (std::size_t done = 0; done < text.size();) {
        const auto n = ::write(fds[1], text.data() + done, text.size() - done);
        if (n <= 0) ::_exit(0);  // the reader stopped at its limit
        done += static_cast<std::size_t>(n);
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    const auto path = "/dev/fd/" + std::to_string(fds[0]);
    constexpr file_kind piped{"piped output", 1000, true};
    if (bytes <= piped.max_bytes) {
      EXPECT_EQ(read_bounded_file(path, piped), std::string(bytes, 'y'));
    } else {
      const auto message = usage_message([&] { (void)read_bounded_file(path, piped); });
      EXPECT_TRUE(contains(message, "it holds more than the 1000 bytes a piped output may be")) << message;
    }
    ::close(fds[0]);
    ::waitpid(writer, nullptr, 0);
  }
}

TEST(BoundedFile, LimitsAreWrittenInTheirLargestWholeUnit) {
  EXPECT_EQ(limit_text(mebibyte), "1 MiB");
  EXPECT_EQ(limit_text(256 * mebibyte), "256 MiB");
  EXPECT_EQ(limit_text(512 * 1024), "512 KiB");
  EXPECT_EQ(limit_text(100), "100 bytes");
}

}  // namespace
}  // namespace ironbench::core
