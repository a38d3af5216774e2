// ironbench's byte-level BPE against Hugging Face `tokenizers` on the same tokenizer.json
// files: exactly the same ids for every text (tests/tokenizer/make_tokenizers.py).
#include "serve/tokenizer/bpe_tokenizer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

// Random text repeats few words: the cache of encoded words stops at its byte limit instead of
// growing with every new word (tests/fuzz/tokenizer_encode_fuzz.cpp grew past 2.5 GB with a
// limit of a million entries, whatever their size), and encoding goes on exactly the same.
TEST(Tokenizer, TheWordCacheStaysWithinItsByteLimit) {
  const auto tokenizer =
      bpe_tokenizer::from_json(R"({"model":{"type":"BPE","vocab":{"a":0,"b":1,"\u0120":2},"merges":[]},)"
                               R"("pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true}})",
                               "t.json");
  // Each word is " " and 200 letters, distinct by its last 16: about 1,900 bytes an entry, so
  // 40,000 of them are past the 64 MiB limit.
  const auto word = [](std::size_t i) {
    std::string w = " " + std::string(184, 'a');
    for (int bit = 15; bit >= 0; --bit) w += ((i >> bit) & 1) != 0 ? 'b' : 'a';
    return w;
  };
  std::size_t words = 0;
  for (std::size_t chunk = 0; chunk < 40; ++chunk) {
    std::string text;
    for (std::size_t i = 0; i < 1000; ++i) text += word(words++);
    ASSERT_EQ(tokenizer->encode(text).size(), text.size());
  }
  EXPECT_LE(tokenizer->cache_bytes(), bpe_tokenizer::cache_byte_limit);
  EXPECT_GT(tokenizer->cache_bytes(), bpe_tokenizer::cache_byte_limit - 4096);
  // A word seen before (cached) and one never seen (not cached) still encode to their letters.
  for (const auto& text : {word(7), word(65535)}) {
    const auto ids = tokenizer->encode(text);
    ASSERT_EQ(ids.size(), text.size());
    EXPECT_EQ(ids.front(), 2);
    for (std::size_t i = 1; i < text.size(); ++i) EXPECT_EQ(ids[i], text[i] == 'a' ? 0 : 1);
  }
}

}  // namespace
}  // namespace ironbench::serve
