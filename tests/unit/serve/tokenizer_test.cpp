// ironbench's byte-level BPE against Hugging Face `tokenizers` on the same tokenizer.json
// files: exactly the same ids for every text (tests/tokenizer/make_tokenizers.py).
#include "serve/tokenizer/bpe_tokenizer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/json.hpp"
#include "temp_dir.hpp"

namespace ironbench::serve {
namespace {

const std::string fixtures = IRONBENCH_TOKENIZER_FIXTURES;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_identical(const std::string& name) {
  if (std::filesystem::exists(fixtures + "/SKIPPED")) GTEST_SKIP() << read(fixtures + "/SKIPPED");
  ASSERT_TRUE(std::filesystem::exists(fixtures + "/" + name + ".tokenizer.json")) << "fixtures missing in " << fixtures;
  const auto tokenizer = bpe_tokenizer::load(fixtures + "/" + name + ".tokenizer.json");
  const auto cases = json::parse(read(fixtures + "/" + name + ".expected.json"));
  ASSERT_GT(cases.size(), 300u);
  std::size_t tokens = 0;
  for (const auto& c : cases) {
    const auto text = c.at("text").get<std::string>();
    const auto expected = c.at("ids").get<std::vector<std::int64_t>>();
    EXPECT_EQ(tokenizer->encode(text), expected) << name << ": " << text;
    tokens += expected.size();
  }
  EXPECT_GT(tokens, 5000u);
}

TEST(Tokenizer, Gpt2StyleByteLevelBpeMatchesHuggingFaceExactly) { expect_identical("gpt2"); }

TEST(Tokenizer, Llama3StyleSplitAndIgnoreMergesMatchesHuggingFaceExactly) { expect_identical("llama3"); }

TEST(Tokenizer, UnsupportedTokenizersAreRefusedWhenLoaded) {
  const testing::temp_dir dir("ironbench_tokenizer_");
  const auto write = [&](const std::string& name, const std::string& text) { return dir.write(name, text).string(); };
  EXPECT_THROW((void)bpe_tokenizer::load((dir / "missing.json").string()), usage_error);
  EXPECT_THROW((void)bpe_tokenizer::load(write("bad.json", "{")), usage_error);
  EXPECT_THROW((void)bpe_tokenizer::load(write("wordpiece.json", R"({"model":{"type":"WordPiece"}})")), usage_error);
  EXPECT_THROW((void)bpe_tokenizer::load(write(
                   "nfkc.json", R"({"normalizer":{"type":"NFKC"},"model":{"type":"BPE","vocab":{},"merges":[]}})")),
               usage_error);
  EXPECT_THROW(
      (void)bpe_tokenizer::load(write(
          "metaspace.json", R"({"pre_tokenizer":{"type":"Metaspace"},"model":{"type":"BPE","vocab":{},"merges":[]}})")),
      usage_error);
}

// Values of the wrong type or missing keys inside a tokenizer.json (found by
// tests/fuzz/tokenizer_load_fuzz.cpp) are one-line usage errors, not JSON library exceptions.
TEST(Tokenizer, MalformedTokenizerJsonIsAUsageError) {
  for (
      const char* text : {
          R"({"model":{"type":"BPE","vocab":{"a":"x"}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE"},"pre_tokenizer":{"type":"Sequence"}})",
          R"({"model":7})",
          R"({"model":{"type":"BPE"},"added_tokens":[{"id":1}],"pre_tokenizer":{"type":"ByteLevel"}})",
          // ids beyond int64 or not whole (undefined behaviour in the conversion before)
          R"({"model":{"type":"BPE","vocab":{"a":6.0428e19}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE","vocab":{"a":18446744073709551615}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE","vocab":{"a":1.5}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE"},"added_tokens":[{"id":1e300,"content":"x"}],"pre_tokenizer":{"type":"ByteLevel"}})",
      }) {
    try {
      (void)bpe_tokenizer::from_json(text, "t.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find("t.json: malformed tokenizer: "), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ironbench::serve
