// libFuzzer target of encoding text (bpe_tokenizer::encode in
// src/serve/tokenizer/bpe_tokenizer.hpp) with two small byte-level BPE tokenizers built here:
// GPT-2's layout (ByteLevel with its regex) and Llama 3's (a Split regex, then ByteLevel),
// each with every byte in its vocabulary, a few merges and two added tokens. The input's first
// byte picks the tokenizer, the rest is the text. Aborts when encoding throws, or when the
// tokens, decoded, are not exactly the text's bytes (byte-level BPE loses nothing).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace {

// GPT-2's map from bytes to printable code points (as UTF-8), the alphabet of byte-level BPE.
// Written here from GPT-2's definition rather than taken from the tokenizer (utf8_text.cpp): the round trip
// below decodes with it, so a mistake in the tokenizer's own table cannot check itself.
std::vector<std::string> byte_level_alphabet() {
  std::vector<int> code(256, -1);
  for (int b = 0; b < 256; ++b) {
    if ((b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE) code[b] = b;
  }
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    if (code[b] < 0) code[b] = next++;
  }
  std::vector<std::string> out(256);
  for (int b = 0; b < 256; ++b) {
    const int c = code[b];
    if (c < 0x80) {
      out[b] = std::string(1, static_cast<char>(c));
    } else {
      out[b] = {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
    }
  }
  return out;
}

struct fixed_tokenizer {
  std::unique_ptr<ironbench::serve::bpe_tokenizer> tokenizer;
  std::vector<std::string> bytes_of_id;  // what each token stands for, by id (empty: no token)
};

fixed_tokenizer make_fixed_tokenizer(bool llama3_layout) {
  const auto alphabet = byte_level_alphabet();
  std::map<std::string, int> byte_of_symbol;
  ironbench::json vocab = ironbench::json::object();
  for (int b = 0; b < 256; ++b) {
    vocab[alphabet[b]] = b;
    byte_of_symbol[alphabet[b]] = b;
  }
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"},        {"\xc4\xa0", "t"}, {"\xc4\xa0t", "he"}, {"i", "n"},
      {"\xc4\xa0", "a"}, {"e", "r"},        {"1", "2"},          {"\xc3\x83", "\xc2\xa9"}};
  ironbench::json merge_list = ironbench::json::array();
  std::int64_t next_id = 256;
  for (const auto& [a, b] : merges) {
    vocab[a + b] = next_id++;
    merge_list.push_back(a + " " + b);
  }
  ironbench::json tokenizer = {
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merge_list}}},
      {"added_tokens",
       {{{"id", 1000}, {"content", "<|endoftext|>"}, {"special", true}},
        {{"id", 1001}, {"content", "<|im_start|>"}, {"special", true}}}},
  };
  if (llama3_layout) {
    const std::string pattern =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    tokenizer["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  } else {
    tokenizer["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}};
  }
  fixed_tokenizer out;
  out.tokenizer = ironbench::serve::bpe_tokenizer::from_json(tokenizer.dump(), "fixed tokenizer");
  out.bytes_of_id.resize(1002);
  for (const auto& [symbols, id] : vocab.items()) {
    std::string bytes;
    for (std::size_t i = 0; i < symbols.size();) {
      const std::size_t length = (static_cast<unsigned char>(symbols[i]) < 0x80) ? 1 : 2;
      bytes.push_back(static_cast<char>(byte_of_symbol.at(symbols.substr(i, length))));
      i += length;
    }
    out.bytes_of_id[id.get<std::size_t>()] = bytes;
  }
  out.bytes_of_id[1000] = "<|endoftext|>";
  out.bytes_of_id[1001] = "<|im_start|>";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fixed_tokenizer gpt2 = make_fixed_tokenizer(false);
  static const fixed_tokenizer llama3 = make_fixed_tokenizer(true);
  if (size == 0) return 0;
  const auto& fixed = (data[0] & 1) != 0 ? llama3 : gpt2;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto ids = fixed.tokenizer->encode(text);
  std::string decoded;
  for (const auto id : ids) {
    if (id < 0 || static_cast<std::size_t>(id) >= fixed.bytes_of_id.size()) std::abort();
    const auto& bytes = fixed.bytes_of_id[static_cast<std::size_t>(id)];
    if (bytes.empty()) std::abort();
    decoded += bytes;
  }
  if (decoded != text) std::abort();
  if (ids.size() > text.size()) std::abort();
  return 0;
}
