// core/json_text: JSON text that is valid UTF-8 whatever bytes the strings hold.
#include "core/json_text.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/json.hpp"

namespace ironbench::core {
namespace {

TEST(JsonText, BytesThatAreNotUtf8BecomeTheReplacementCharacter) {
  const json document = {{"tag", "lab-\xff"}, {"cut", "\xe2\x82"}, {"fine", "caf\xc3\xa9"}};
  EXPECT_THROW((void)document.dump(), json::type_error);  // what json_text exists for
  EXPECT_EQ(json_text(document), "{\"tag\":\"lab-\xef\xbf\xbd\",\"cut\":\"\xef\xbf\xbd\",\"fine\":\"caf\xc3\xa9\"}");
  EXPECT_EQ(json_text(nlohmann::json{{"k", 1}}, 2), "{\n  \"k\": 1\n}");
  EXPECT_EQ(json::parse(json_text(document)).at("tag"), "lab-\xef\xbf\xbd");
}

// Every document ironbench writes goes through json_text: a plain dump() anywhere in src/
// would throw on the first byte that is not UTF-8 and lose what was measured.
TEST(JsonText, NoSourceDumpsJsonWithoutIt) {
  const auto src = std::filesystem::path(IRONBENCH_TEST_DATA) / ".." / ".." / "src";
  ASSERT_TRUE(std::filesystem::is_directory(src)) << src;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    const auto extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp")) continue;
    if (entry.path().filename() == "json_text.hpp") continue;
    ++files;
    std::ifstream in(entry.path());
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_EQ(text.find(".dump("), std::string::npos) << entry.path() << " dumps JSON without core::json_text";
  }
  EXPECT_GT(files, 100u);
}

}  // namespace
}  // namespace ironbench::core
