#include <gtest/gtest.h>

#include "platform/sysfs_reader.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

TEST(SysfsReader, ReadsTrimmedTextAndIntegers) {
  test::temp_dir dir;
  dir.write("proc/sys/kernel/hostname", "  node-1\n");
  dir.write("sys/a/number", "-42\n");
  dir.write("sys/a/word", "max\n");
  const sysfs_reader reader(dir.path());
  EXPECT_EQ(reader.read_text("proc/sys/kernel/hostname"), "node-1");
  EXPECT_EQ(reader.read_text("/proc/sys/kernel/hostname"), "node-1");  // leading '/' ignored
  EXPECT_EQ(reader.read_int("sys/a/number"), -42);
  EXPECT_EQ(reader.read_int("sys/a/word"), std::nullopt);
  EXPECT_FALSE(reader.is_live());
}

TEST(SysfsReader, MissingFilesAreEmptyNotErrors) {
  test::temp_dir dir;
  dir.write("sys/a/file", "x");
  const sysfs_reader reader(dir.path());
  EXPECT_EQ(reader.read_text("nope"), std::nullopt);
  EXPECT_EQ(reader.read_text("sys/a"), std::nullopt);  // a directory
  EXPECT_EQ(reader.read_int("nope"), std::nullopt);
  EXPECT_TRUE(reader.list_dir("nope").empty());
  EXPECT_FALSE(reader.exists("nope"));
  EXPECT_TRUE(reader.exists("sys/a/file"));
  EXPECT_TRUE(reader.is_directory("sys/a"));
  EXPECT_EQ(reader.read_link("sys/a/file"), std::nullopt);  // not a link
}

TEST(SysfsReader, ListsDirectoriesSorted) {
  test::temp_dir dir;
  dir.write("d/cpu10/x", "");
  dir.write("d/cpu2/x", "");
  dir.write("d/online", "");
  const sysfs_reader reader(dir.path());
  EXPECT_EQ(reader.list_dir("d"), (std::vector<std::string>{"cpu10", "cpu2", "online"}));
}

TEST(SysfsReader, ReadsDanglingLinks) {
  test::temp_dir dir;
  std::filesystem::create_directories(dir.path() / "proc/self/ns");
  std::filesystem::create_symlink("cgroup:[4026531835]", dir.path() / "proc/self/ns/cgroup");
  const sysfs_reader reader(dir.path());
  EXPECT_EQ(reader.read_link("proc/self/ns/cgroup"), "cgroup:[4026531835]");
  EXPECT_TRUE(reader.exists("proc/self/ns/cgroup"));
}

TEST(SysfsReader, LiveRoot) {
  EXPECT_TRUE(sysfs_reader("/").is_live());
  EXPECT_TRUE(sysfs_reader("").is_live());
  EXPECT_TRUE(sysfs_reader("//").is_live());
}

TEST(SysfsReader, ParseIntAndTrim) {
  EXPECT_EQ(trim("  a b \n"), "a b");
  EXPECT_EQ(trim(" \t\n"), "");
  EXPECT_EQ(parse_int("9223372036854771712"), 9223372036854771712LL);
  EXPECT_EQ(parse_int(" 12\n"), 12);
  EXPECT_EQ(parse_int("12k"), std::nullopt);
  EXPECT_EQ(parse_int(""), std::nullopt);
  EXPECT_EQ(parse_int("99999999999999999999"), std::nullopt);
}

}  // namespace
}  // namespace ironbench::platform
