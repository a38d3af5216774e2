#include "core/text_match.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace ironbench {
namespace {

TEST(TextMatch, ShapesStandForDigits) {
  EXPECT_TRUE(has_shape("2026-05-01", "9999-99-99"));
  EXPECT_TRUE(has_shape("12:34:56", "99:99:99"));
  EXPECT_FALSE(has_shape("2026-5-01", "9999-99-99"));
  EXPECT_FALSE(has_shape("2026-05-0x", "9999-99-99"));
  EXPECT_FALSE(has_shape("2026/05/01", "9999-99-99"));
  EXPECT_FALSE(has_shape("2026-05-011", "9999-99-99"));
  EXPECT_TRUE(has_shape("", ""));
}

TEST(TextMatch, TheScannerConsumesOnlyWhatMatches) {
  text_scanner s("#  Rank  12 Pid 7 [0000:04:00] NVIDIA H100");
  EXPECT_FALSE(s.literal("Rank"));
  EXPECT_TRUE(s.literal("#"));
  EXPECT_TRUE(s.spaces());
  EXPECT_FALSE(s.spaces());
  EXPECT_EQ(s.digits(), "");
  EXPECT_TRUE(s.literal("Rank"));
  s.skip_spaces();
  EXPECT_EQ(s.digits(), "12");
  const auto before = s.position();
  EXPECT_TRUE(s.spaces() && s.literal("Pid") && s.spaces());
  EXPECT_EQ(s.word(), "7");
  s.rewind(before);
  EXPECT_EQ(s.remaining().substr(0, 4), " Pid");
  s.skip_spaces();
  EXPECT_EQ(s.word(), "Pid");
  EXPECT_FALSE(s.until('?').has_value());
  EXPECT_EQ(s.until('['), " 7 ");
  EXPECT_TRUE(s.literal("["));
  EXPECT_EQ(s.until(']'), "0000:04:00");
  EXPECT_TRUE(s.literal("]"));
  EXPECT_FALSE(s.at_end());
  EXPECT_EQ(s.rest(), " NVIDIA H100");
  EXPECT_TRUE(s.at_end());
  EXPECT_EQ(s.word(), "");
}

// Lines far longer than a recursive pattern survives (std::regex overflowed the stack near
// 30,000 characters) are scanned in one pass.
TEST(TextMatch, LongTextIsScannedWithoutRecursion) {
  const std::string digits(5000000, '7');
  const auto text = digits + " " + std::string(5000000, ' ') + "x";
  text_scanner s(text);
  EXPECT_EQ(s.digits().size(), digits.size());
  EXPECT_TRUE(s.spaces());
  EXPECT_EQ(s.word(), "x");
  EXPECT_TRUE(s.at_end());
  EXPECT_FALSE(has_shape(digits, "9999-99-99"));
}

// std::regex (libstdc++) recurses per character and overflows the stack on inputs of about
// 30,000 characters (exit 139), so no source of ironbench uses it: fixed formats go through
// text_scanner, user patterns through PCRE2 (experiment/log_pattern).
TEST(TextMatch, NoSourceUsesTheRecursiveStandardRegex) {
  const auto src = std::filesystem::path(IRONBENCH_TEST_DATA) / ".." / ".." / "src";
  ASSERT_TRUE(std::filesystem::is_directory(src)) << src;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    const auto extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp" && extension != ".h")) continue;
    ++files;
    std::ifstream in(entry.path());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    for (const char* banned : {"std::regex", "std::sregex", "std::smatch", "#include <regex>"}) {
      EXPECT_EQ(text.find(banned), std::string::npos) << entry.path() << " uses " << banned;
    }
  }
  EXPECT_GT(files, 100u);
}

}  // namespace
}  // namespace ironbench
