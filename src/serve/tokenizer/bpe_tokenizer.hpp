// A Hugging Face `tokenizer.json`, loaded and applied in C++ so that prompts are measured and
// output text is counted in the model's own tokens. Supported, each as Hugging Face
// `tokenizers` applies it (docs/serving-metrics.md, "Tokenizer"):
// - models: BPE (merges as strings or pairs, `ignore_merges`, `byte_fallback` to <0xXX>
//   tokens, `fuse_unk`) and Unigram (Viterbi over the pieces' scores, the unknown token for
//   what no piece covers, `byte_fallback`);
// - normalizers: Prepend, Replace (a string or a regex), Precompiled (SentencePiece's compiled
//   normalization rules) and a Sequence of them;
// - pre-tokenizers: ByteLevel (with or without its regex), Split (a string or a regex, every
//   behaviour, inverted or not), Metaspace (prepend_scheme always / first / never, split or
//   not), WhitespaceSplit and a Sequence of them;
// - added (special) tokens, matched in the text first.
// So GPT-2, Llama 3, Qwen, Mistral Nemo (byte-level BPE), Llama 2, Mistral 7B, Gemma
// (SentencePiece-style BPE with byte fallback) and T5, XLM-RoBERTa (Unigram). Anything else
// is refused when loading, never approximated.
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

  /// Token ids of `text` (UTF-8), without special tokens added around it (what
  /// `encode(text, add_special_tokens=False)` gives; a chat template writes its own).
  [[nodiscard]] std::vector<std::int64_t> encode(std::string_view text) const;
  /// How many tokens `text` is.
  [[nodiscard]] std::size_t count(std::string_view text) const { return encode(text).size(); }
  /// The model's vocabulary (without added tokens outside it).
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
