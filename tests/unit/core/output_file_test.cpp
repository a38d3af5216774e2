// core/output_file: regular files replaced atomically, everything else written in place.
#include "core/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "files.hpp"
#include "temp_dir.hpp"

namespace ironbench::core {
namespace {

namespace fs = std::filesystem;
using testing::read_file;
using testing::temp_dir;

TEST(OutputFile, ARegularFileIsReplacedAtomicallyAndKeepsItsPermissions) {
  temp_dir dir;
  const auto path = dir.write("run.json", "old").string();
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const auto plan = plan_output_file(path);
  EXPECT_EQ(plan.mode, output_file_mode::replace_atomically);
  write_output_file(path, "new text");
  EXPECT_EQ(read_file(path), "new text");
  EXPECT_FALSE(fs::exists(path + ".partial"));
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(OutputFile, ANewNameIsCreated) {
  temp_dir dir;
  const auto path = (dir / "new.csv").string();
  write_output_file(path, "a,b\n");
  EXPECT_EQ(read_file(path), "a,b\n");
}

TEST(OutputFile, ASymbolicLinkIsFollowedAndStaysALink) {
  temp_dir dir;
  fs::create_directory(dir / "real");
  const auto target = dir.write("real/target.json", "old").string();
  const auto link = (dir / "link.json").string();
  fs::create_symlink("real/target.json", link);
  const auto plan = plan_output_file(link);
  EXPECT_EQ(plan.resolved, fs::canonical(target).string());
  write_output_file(link, "through the link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target), "through the link");
}

TEST(OutputFile, ALinkToAFileNotThereYetCreatesIt) {
  temp_dir dir;
  const auto link = (dir / "dangling.md").string();
  fs::create_symlink(dir / "made.md", link);
  write_output_file(link, "# made");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file((dir / "made.md").string()), "# made");
}

TEST(OutputFile, AFifoIsWrittenInPlace) {
  temp_dir dir;
  const auto fifo = (dir / "pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(plan_output_file(fifo).mode, output_file_mode::write_in_place);
  std::string received;
  std::thread reader([&] { received = read_file(fifo); });  // blocks until the writer opens
  write_output_file(fifo, "{\"streamed\": true}\n");
  reader.join();
  EXPECT_EQ(received, "{\"streamed\": true}\n");
  struct stat info {};
  ASSERT_EQ(::stat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode)) << "the FIFO was replaced by a regular file";
  EXPECT_FALSE(fs::exists(fifo + ".partial"));
}

TEST(OutputFile, ACharacterDeviceIsWrittenInPlace) {
  // /dev/null itself: were it replaced, the test would have broken the machine's /dev/null,
  // so only its plan is asserted first and the write happens only when in place.
  const auto plan = plan_output_file("/dev/null");
  ASSERT_EQ(plan.mode, output_file_mode::write_in_place);
  write_output_file(plan, [](std::ostream& out) { out << "discarded"; });
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  EXPECT_FALSE(fs::exists("/dev/null.partial"));
}

TEST(OutputFile, DescriptorNamesAreWrittenThroughTheDescriptor) {
  int ends[2] = {-1, -1};
  ASSERT_EQ(::pipe(ends), 0);
  const auto name = "/dev/fd/" + std::to_string(ends[1]);
  const auto plan = plan_output_file(name);
  EXPECT_EQ(plan.mode, output_file_mode::write_in_place);
  EXPECT_EQ(plan.descriptor, ends[1]);
  write_output_file(plan, [](std::ostream& out) { out << "through the pipe"; });
  ::close(ends[1]);
  char buffer[64] = {};
  const auto n = ::read(ends[0], buffer, sizeof buffer);
  ::close(ends[0]);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
  EXPECT_EQ(plan_output_file("/dev/stdout").descriptor, STDOUT_FILENO);
  EXPECT_EQ(plan_output_file("/proc/self/fd/2").descriptor, STDERR_FILENO);
  EXPECT_EQ(plan_output_file("/dev/null").descriptor, -1);
}

TEST(OutputFile, NamesThatCannotBeWrittenAreUsageErrors) {
  temp_dir dir;
  EXPECT_THROW((void)plan_output_file(dir.str()), usage_error);
  EXPECT_THROW((void)plan_output_file((dir / "no/such/dir/run.json").string()), usage_error);
  EXPECT_THROW((void)plan_output_file(""), usage_error);
  const auto a = (dir / "a").string();
  const auto b = (dir / "b").string();
  fs::create_symlink(b, a);
  fs::create_symlink(a, b);
  EXPECT_THROW((void)plan_output_file(a), usage_error);
}

}  // namespace
}  // namespace ironbench::core
