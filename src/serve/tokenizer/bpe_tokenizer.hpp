// A Hugging Face `tokenizer.json` with a byte-level BPE model (GPT-2, Llama 3, Qwen, Mistral
// and most current LLMs), loaded and applied in C++ so that prompts are measured and output
// text is counted in the model's own tokens. Supported: no normalizer; pre-tokenizers
// ByteLevel (with or without its regex), Split (Isolated, on a regex) and a Sequence of them;
// the BPE model with merges as strings or pairs and `ignore_merges`; added (special) tokens
// matched in the text first. Anything else is refused when loading, never approximated.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve {

class bpe_tokenizer {
 public:
  /// Loads `path`; throws usage_error naming the file and the unsupported part.
  static std::unique_ptr<bpe_tokenizer> load(const std::string& path);
  /// The tokenizer whose tokenizer.json is `text`; errors name `path` (where it was read).
  static std::unique_ptr<bpe_tokenizer> from_json(std::string_view text, const std::string& path);
  ~bpe_tokenizer();
  bpe_tokenizer(const bpe_tokenizer&) = delete;
  bpe_tokenizer& operator=(const bpe_tokenizer&) = delete;

  /// Token ids of `text` (UTF-8), without special tokens added around it.
  [[nodiscard]] std::vector<std::int64_t> encode(std::string_view text) const;
  /// How many tokens `text` is.
  [[nodiscard]] std::size_t count(std::string_view text) const { return encode(text).size(); }
  [[nodiscard]] std::size_t vocab_size() const;

  /// Words already encoded are remembered (a dataset repeats most of its words), up to this
  /// many bytes of words and ids counted with a fixed cost per entry: random text, whose words
  /// rarely repeat, cannot grow the cache without bound.
  static constexpr std::size_t cache_byte_limit = std::size_t{64} << 20;
  /// The bytes the cache holds now, counted as cache_byte_limit counts them.
  [[nodiscard]] std::size_t cache_bytes() const;

 private:
  struct impl;
  explicit bpe_tokenizer(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace ironbench::serve
