// ironbench's tokenizer against Hugging Face `tokenizers` on the same tokenizer.json files:
// exactly the same ids for every text. Byte-level BPE tokenizers trained for the test
// (tests/tokenizer/make_tokenizers.py) and the real tokenizers of Llama 2, Mistral 7B, Gemma and
// XLM-RoBERTa (tests/tokenizer/make_real_tokenizers.py); then each part alone, on small
// tokenizers whose ids Hugging Face `tokenizers` 0.23 gave (written down here).
#include "serve/tokenizer/bpe_tokenizer.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

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

void expect_identical(const std::string& folder, const std::string& name) {
  if (std::filesystem::exists(folder + "/SKIPPED")) GTEST_SKIP() << read(folder + "/SKIPPED");
  ASSERT_TRUE(std::filesystem::exists(folder + "/" + name + ".tokenizer.json")) << "fixtures missing in " << folder;
  const auto tokenizer = bpe_tokenizer::load(folder + "/" + name + ".tokenizer.json");
  const auto cases = json::parse(read(folder + "/" + name + ".expected.json"));
  ASSERT_GT(cases.size(), 300u);
  std::size_t tokens = 0, identical = 0;
  for (const auto& c : cases) {
    const auto text = c.at("text").get<std::string>();
    const auto expected = c.at("ids").get<std::vector<std::int64_t>>();
    const auto ids = tokenizer->encode(text);
    EXPECT_EQ(ids, expected) << name << ": " << text;
    identical += ids == expected ? 1 : 0;
    tokens += expected.size();
  }
  EXPECT_GT(tokens, 5000u);
  std::cout << name << ": identical ids on " << identical << " of " << cases.size() << " texts (" << tokens
            << " tokens)\n";
}

void expect_identical(const std::string& name) { expect_identical(fixtures, name); }

TEST(Tokenizer, Gpt2StyleByteLevelBpeMatchesHuggingFaceExactly) { expect_identical("gpt2"); }

TEST(Tokenizer, Llama3StyleSplitAndIgnoreMergesMatchesHuggingFaceExactly) { expect_identical("llama3"); }

// The real models' tokenizer.json files (tests/tokenizer/make_real_tokenizers.py): rebuilt from
// the vocabularies PyPI packages carry, the Llama 2 and Gemma files checked there against the
// ids Hugging Face gave on the originals.
const std::string real_fixtures = fixtures + "/real";

TEST(TokenizerReal, TheRebuiltFilesWereCheckedAgainstTheOriginals) {
  if (std::filesystem::exists(real_fixtures + "/SKIPPED")) GTEST_SKIP() << read(real_fixtures + "/SKIPPED");
  const auto checked = json::parse(read(real_fixtures + "/checked.json"));
  EXPECT_GE(checked.at("llama2").get<int>(), 40);
  EXPECT_GE(checked.at("gemma").get<int>(), 40);
}

// SentencePiece-style BPE, byte fallback, Hugging Face's legacy layout (Prepend and Replace
// normalizers, no pre-tokenizer).
TEST(TokenizerReal, Llama2MatchesHuggingFaceExactly) { expect_identical(real_fixtures, "llama2"); }
TEST(TokenizerReal, Mistral7bV01MatchesHuggingFaceExactly) { expect_identical(real_fixtures, "mistral-v0.1"); }
// The same with the Metaspace pre-tokenizer (prepend_scheme first, no split) and control tokens.
TEST(TokenizerReal, Mistral7bV03MatchesHuggingFaceExactly) { expect_identical(real_fixtures, "mistral-v0.3"); }
// Replace normalizer, Split(" ", MergedWithPrevious), merges as pairs, 262k tokens.
TEST(TokenizerReal, GemmaMatchesHuggingFaceExactly) { expect_identical(real_fixtures, "gemma"); }
// Unigram with the Precompiled normalizer, a Replace regex and Metaspace (split).
TEST(TokenizerReal, XlmRobertaUnigramMatchesHuggingFaceExactly) { expect_identical(real_fixtures, "xlm-roberta"); }
// T5's layout (Precompiled, WhitespaceSplit, Metaspace) on the same pieces.
TEST(TokenizerReal, T5StyleUnigramMatchesHuggingFaceExactly) { expect_identical(real_fixtures, "t5-style"); }

TEST(Tokenizer, UnsupportedTokenizersAreRefusedWhenLoaded) {
  const testing::temp_dir dir("ironbench_tokenizer_");
  const auto write = [&](const std::string& name, const std::string& text) { return dir.write(name, text).string(); };
  EXPECT_THROW((void)bpe_tokenizer::load((dir / "missing.json").string()), usage_error);
  EXPECT_THROW((void)bpe_tokenizer::load(write("bad.json", "{")), usage_error);
  EXPECT_THROW((void)bpe_tokenizer::load(write("wordpiece.json", R"({"model":{"type":"WordPiece"}})")), usage_error);
  const auto refused = [&](const std::string& text, const std::string& what) {
    try {
      (void)bpe_tokenizer::from_json(text, "t.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const usage_error& e) {
      EXPECT_EQ(std::string(e.what()).find("t.json: " + what + " is not supported"), 0u) << e.what();
    }
  };
  refused(R"({"model":{"type":"WordPiece"}})", "model 'WordPiece'");
  refused(R"({"normalizer":{"type":"NFKC"},"model":{"type":"BPE","vocab":{},"merges":[]}})", "normalizer 'NFKC'");
  refused(
      R"({"normalizer":{"type":"Sequence","normalizers":[{"type":"Lowercase"}]},"model":{"type":"Unigram","vocab":[]}})",
      "normalizer 'Lowercase'");
  refused(R"({"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"BPE","vocab":{},"merges":[]}})",
          "pre-tokenizer 'Whitespace'");
  refused(R"({"pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"Sideways"},"model":{"type":"BPE"}})",
          "a Split with behavior 'Sideways'");
  refused(R"({"model":{"type":"BPE","vocab":{},"merges":[],"continuing_subword_prefix":"##"}})",
          "BPE's continuing_subword_prefix");
  refused(R"({"model":{"type":"BPE","vocab":{},"merges":[],"dropout":0.1}})", "BPE dropout");
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
          // ids Hugging Face's u32 does not hold: a negative id reached the encoded text
          R"({"model":{"type":"BPE","vocab":{"a":-8}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE","vocab":{"a":4294967296}},"pre_tokenizer":{"type":"ByteLevel"}})",
          R"({"model":{"type":"BPE"},"added_tokens":[{"id":-1,"content":"x"}],"pre_tokenizer":{"type":"ByteLevel"}})",
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

// A small SentencePiece-style BPE: the 256 byte tokens <0x00>..<0xFF> (ids 0..255), then
// <unk> 256, ▁ 257, a 258, b 259, ▁a 260, ab 261, ▁ab 262, é 263; <s> 264 as an added token.
json small_bpe(const json& byte_fallback, bool fuse_unk, const json& unk_token) {
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[fmt::format("<0x{:02X}>", b)] = b;
  int id = 256;
  for (const char* token : {"<unk>", "\u2581", "a", "b", "\u2581a", "ab", "\u2581ab", "\u00e9"}) vocab[token] = id++;
  return {{"type", "BPE"},
          {"vocab", vocab},
          {"merges", {"\u2581 a", "a b", "\u2581a b"}},
          {"byte_fallback", byte_fallback},
          {"fuse_unk", fuse_unk},
          {"unk_token", unk_token},
          {"dropout", nullptr}};
}

json metaspace(const std::string& scheme, bool split) {
  return {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", scheme}, {"split", split}};
}

const json added_s = json::array({{{"id", 264}, {"content", "<s>"}, {"special", true}, {"normalized", false}}});

using ids = std::vector<std::int64_t>;

std::vector<ids> encode_all(const json& spec, const std::vector<std::string>& texts) {
  const auto tokenizer = bpe_tokenizer::from_json(spec.dump(), "t.json");
  std::vector<ids> out;
  for (const auto& t : texts) out.push_back(tokenizer->encode(t));
  return out;
}

// Characters outside the vocabulary: their UTF-8 bytes as <0xXX> tokens with byte_fallback,
// else the unknown token (one for a run with fuse_unk), else nothing (Hugging Face drops them).
TEST(TokenizerParts, ByteFallbackThenUnknownTokenThenNothing) {
  const std::vector<std::string> texts = {"ab ab", " ab", "a\u65e5b", "\u65e5\u672c", "ab\u00e9", ""};
  const auto with = [&](const json& model) {
    return encode_all({{"model", model}, {"pre_tokenizer", metaspace("first", false)}}, texts);
  };
  EXPECT_EQ(with(small_bpe(true, true, "<unk>")),
            (std::vector<ids>{
                {262, 262}, {262}, {260, 230, 151, 165, 259}, {257, 230, 151, 165, 230, 156, 172}, {262, 263}, {}}));
  EXPECT_EQ(with(small_bpe(false, true, "<unk>")),
            (std::vector<ids>{{262, 262}, {262}, {260, 256, 259}, {257, 256}, {262, 263}, {}}));
  EXPECT_EQ(with(small_bpe(false, false, "<unk>")),
            (std::vector<ids>{{262, 262}, {262}, {260, 256, 259}, {257, 256, 256}, {262, 263}, {}}));
  EXPECT_EQ(with(small_bpe(false, false, nullptr)),
            (std::vector<ids>{{262, 262}, {262}, {262}, {257}, {262, 263}, {}}));
}

// Metaspace: spaces become ▁; "always" prepends one to every stretch between added tokens,
// "first" only where the text begins, "never" nowhere; split cuts before each ▁.
TEST(TokenizerParts, MetaspacePrependSchemesAndSplit) {
  const std::vector<std::string> texts = {"ab ab", "<s>ab ab", "ab<s> ab", "  ab", "ab  ab "};
  const std::map<std::string, std::vector<ids>> expected = {
      {"always", {{262, 262}, {264, 262, 262}, {262, 264, 262}, {257, 262}, {262, 257, 262, 257}}},
      {"first", {{262, 262}, {264, 261, 262}, {262, 264, 262}, {257, 262}, {262, 257, 262, 257}}},
      {"never", {{261, 262}, {264, 261, 262}, {261, 264, 262}, {257, 262}, {261, 257, 262, 257}}},
  };
  for (const auto& [scheme, want] : expected) {
    for (const bool split : {true, false}) {
      EXPECT_EQ(encode_all({{"model", small_bpe(true, true, "<unk>")},
                            {"added_tokens", added_s},
                            {"pre_tokenizer", metaspace(scheme, split)}},
                           texts),
                want)
          << scheme << (split ? " split" : "");
    }
  }
  // Files written before prepend_scheme say add_prefix_space: false for "never".
  EXPECT_EQ(
      encode_all({{"model", small_bpe(true, true, "<unk>")},
                  {"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"add_prefix_space", false}}}},
                 {"ab ab"}),
      (std::vector<ids>{{261, 262}}));
}

// Llama 2's legacy layout (Prepend "▁" and Replace " " -> "▁" on each stretch between added
// tokens), Gemma's (Replace, then Split(" ", MergedWithPrevious)) and T5's (a Replace regex,
// WhitespaceSplit on Unicode's white space, Metaspace).
TEST(TokenizerParts, NormalizersAndWhitespaceSplit) {
  const std::vector<std::string> texts = {"ab ab", "<s>ab ab", "ab<s> ab", "  ab", "ab  ab "};
  const json replace_space = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
  EXPECT_EQ(
      encode_all(
          {{"model", small_bpe(true, true, "<unk>")},
           {"added_tokens", added_s},
           {"normalizer",
            {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", "\u2581"}}, replace_space}}}}},
          texts),
      (std::vector<ids>{{262, 262}, {264, 262, 262}, {262, 264, 257, 262}, {257, 257, 262}, {262, 257, 262, 257}}));
  EXPECT_EQ(encode_all({{"model", small_bpe(true, true, "<unk>")},
                        {"added_tokens", added_s},
                        {"normalizer", replace_space},
                        {"pre_tokenizer",
                         {{"type", "Split"},
                          {"pattern", {{"String", " "}}},
                          {"behavior", "MergedWithPrevious"},
                          {"invert", false}}}},
                       texts),
            (std::vector<ids>{{261, 262}, {264, 261, 262}, {261, 264, 262}, {257, 262}, {261, 257, 262, 257}}));
  auto t5_texts = texts;
  t5_texts.push_back("ab\u3000ab\tab");
  EXPECT_EQ(
      encode_all(
          {{"model", small_bpe(true, true, "<unk>")},
           {"normalizer", {{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}}},
           {"pre_tokenizer",
            {{"type", "Sequence"}, {"pretokenizers", {{{"type", "WhitespaceSplit"}}, metaspace("always", true)}}}}},
          t5_texts),
      (std::vector<ids>{
          {262, 262}, {257, 60, 115, 62, 261, 262}, {262, 60, 115, 62, 262}, {262}, {262, 262}, {262, 262, 262}}));
}

// Added tokens with lstrip / rstrip take the white space before / after them (XLM-RoBERTa's
// <mask> has lstrip), never past another match; single_word, and normalized beside a
// normalizer, are refused.
TEST(TokenizerParts, AddedTokensStripWhiteSpace) {
  const json added =
      json::array({{{"id", 264}, {"content", "<m>"}, {"lstrip", true}, {"rstrip", false}, {"normalized", false}},
                   {{"id", 265}, {"content", "<r>"}, {"lstrip", false}, {"rstrip", true}, {"normalized", false}}});
  EXPECT_EQ(encode_all({{"model", small_bpe(true, true, "<unk>")},
                        {"added_tokens", added},
                        {"pre_tokenizer", metaspace("first", false)}},
                       {"ab <m> ab", "ab \u3000\t<m>ab", "<m>  ab", "ab<r>  ab", "ab <r>\n ab <m>", "ab <r> <m> ab"}),
            (std::vector<ids>{{262, 264, 262},
                              {262, 264, 261},
                              {264, 257, 262},
                              {262, 265, 261},
                              {262, 257, 265, 261, 264},
                              {262, 257, 265, 264, 262}}));
  const auto refused = [](json token, const std::string& what) {
    token["id"] = 264;
    token["content"] = "<m>";
    const json spec = {{"model", small_bpe(true, true, "<unk>")},
                       {"normalizer", {{"type", "Prepend"}, {"prepend", "\u2581"}}},
                       {"added_tokens", json::array({token})}};
    try {
      (void)bpe_tokenizer::from_json(spec.dump(), "t.json");
      ADD_FAILURE() << "accepted " << token.dump();
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused({{"single_word", true}}, "the added token '<m>' with single_word is not supported");
  refused({{"normalized", true}}, "the added token '<m>' with normalized: true beside a normalizer is not supported");
  // Marked normalized without a normalizer, it is matched as written (no normalizer changes it).
  EXPECT_EQ(encode_all({{"model", small_bpe(true, true, "<unk>")},
                        {"added_tokens", json::array({{{"id", 264}, {"content", "<m>"}, {"normalized", true}}})},
                        {"pre_tokenizer", metaspace("first", false)}},
                       {"ab<m>ab"}),
            (std::vector<ids>{{262, 264, 261}}));
}

// Split on a string with each behaviour, inverted or not.
TEST(TokenizerParts, SplitBehaviours) {
  const std::vector<std::string> texts = {"abba", "bab", "aabbbaab"};
  const std::vector<ids> isolated = {{258, 259, 259, 258}, {259, 258, 259}, {258, 258, 259, 259, 259, 258, 258, 259}};
  const std::vector<ids> merged = {{261, 259, 258}, {259, 261}, {258, 261, 259, 259, 258, 261}};
  const std::vector<std::tuple<std::string, bool, std::vector<ids>>> cases = {
      {"Removed", false, {{258, 258}, {258}, {258, 258, 258, 258}}},
      {"Removed", true, {{259, 259}, {259, 259}, {259, 259, 259, 259}}},
      {"Isolated", false, isolated},
      {"Isolated", true, isolated},
      {"MergedWithPrevious", false, merged},
      {"MergedWithPrevious", true, isolated},
      {"MergedWithNext", false, isolated},
      {"MergedWithNext", true, merged},
      {"Contiguous", false, isolated},
      {"Contiguous", true, isolated},
  };
  for (const auto& [behavior, invert, want] : cases) {
    EXPECT_EQ(
        encode_all({{"model", small_bpe(true, true, "<unk>")},
                    {"pre_tokenizer",
                     {{"type", "Split"}, {"pattern", {{"String", "b"}}}, {"behavior", behavior}, {"invert", invert}}}},
                   texts),
        want)
        << behavior << (invert ? " inverted" : "");
  }
}

// Unigram: the Viterbi path of highest total score (Hugging Face's own example), unknown
// characters as one fused unknown token, or as byte tokens with byte_fallback.
TEST(TokenizerParts, UnigramViterbiUnknownAndByteFallback) {
  json vocab = json::array({{"<unk>", 0.0},
                            {"a", 0.0},
                            {"b", 0.0},
                            {"c", 0.0},
                            {"d", 0.0},
                            {"cd", 1.0},
                            {"ab", 2.0},
                            {"abc", 5.0},
                            {"abcd", 10.0}});
  EXPECT_EQ(encode_all({{"model", {{"type", "Unigram"}, {"vocab", vocab}, {"unk_id", 0}}}},
                       {"abcdacdxx", "xabx", "", "abcd", "\u00e9\u00e9a"}),
            (std::vector<ids>{{8, 1, 5, 0}, {0, 6, 0}, {}, {8}, {0, 1}}));
  for (int b = 0; b < 256; ++b) vocab.push_back({fmt::format("<0x{:02X}>", b), -20.0});
  EXPECT_EQ(encode_all({{"model", {{"type", "Unigram"}, {"vocab", vocab}, {"unk_id", 0}, {"byte_fallback", true}}}},
                       {"abcdacdxx", "xabx", "\u00e9"}),
            (std::vector<ids>{{8, 1, 5, 129, 129}, {129, 6, 129}, {204, 178}}));
  // Without an unknown token, a character no piece covers cannot be encoded.
  vocab.erase(0);
  EXPECT_THROW(
      (void)bpe_tokenizer::from_json(json({{"model", {{"type", "Unigram"}, {"vocab", vocab}}}}).dump(), "t.json")
          ->encode("x"),
      error);
}

// SentencePiece's precompiled_charsmap: a double-array trie with one key, "A", whose value
// points at "a" in the normalized strings. As Hugging Face does, a grapheme cluster shorter
// than 6 bytes is replaced whole by what its shortest prefix maps to ("A\u0301" becomes "a").
TEST(TokenizerParts, PrecompiledNormalizerReadsTheDoubleArrayTrie) {
  std::vector<std::uint32_t> units(512, 0);       // as large as a real trie: every byte's child in range
  units[0] = 1U << 10;                            // the root: children at 1 ^ byte
  units[1 ^ 'A'] = (1U << 10) | (1U << 8) | 'A';  // 'A', with a leaf at 64 ^ 1
  units[(1 ^ 'A') ^ 1] = (1U << 31) | 0;          // the leaf: offset 0 in the normalized strings
  std::string blob;
  const auto put = [&](std::uint32_t v) {
    for (int k = 0; k < 4; ++k) blob.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
  };
  put(static_cast<std::uint32_t>(units.size() * 4));
  for (const auto u : units) put(u);
  blob += std::string("a\0", 2);
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string base64;
  for (std::size_t i = 0; i < blob.size(); i += 3) {
    const std::uint32_t n = (static_cast<unsigned char>(blob[i]) << 16) |
                            (i + 1 < blob.size() ? static_cast<unsigned char>(blob[i + 1]) << 8 : 0) |
                            (i + 2 < blob.size() ? static_cast<unsigned char>(blob[i + 2]) : 0);
    base64 += alphabet[(n >> 18) & 63];
    base64 += alphabet[(n >> 12) & 63];
    base64 += i + 1 < blob.size() ? alphabet[(n >> 6) & 63] : '=';
    base64 += i + 2 < blob.size() ? alphabet[n & 63] : '=';
  }
  const json vocab = json::array({{"<unk>", 0.0}, {"a", -1.0}, {"A", -1.0}, {"b", -1.0}, {"\u0301", -1.0}});
  const auto tokenizer =
      bpe_tokenizer::from_json(json({{"model", {{"type", "Unigram"}, {"vocab", vocab}, {"unk_id", 0}}},
                                     {"normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", base64}}}})
                                   .dump(),
                               "t.json");
  EXPECT_EQ(tokenizer->encode("AbA\u0301b"), (ids{1, 3, 1, 3}));
  EXPECT_EQ(tokenizer->encode("b\u0301"), (ids{3, 4}));  // no key: unchanged
  EXPECT_THROW(
      (void)bpe_tokenizer::from_json(
          R"({"model":{"type":"Unigram","vocab":[]},"normalizer":{"type":"Precompiled","precompiled_charsmap":"AAAAAQ=="}})",
          "t.json"),
      usage_error);
}

}  // namespace
}  // namespace ironbench::serve
