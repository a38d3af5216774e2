// libFuzzer target of loading a Hugging Face tokenizer.json (bpe_tokenizer::from_json in
// src/serve/tokenizer/bpe_tokenizer.hpp), then encoding a fixed text with what was loaded.
// usage_error (an unsupported or malformed tokenizer) and error (a vocabulary without a token
// the text needs) are expected answers; any other exception escaping is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto tokenizer = ironbench::serve::bpe_tokenizer::from_json(text, "tokenizer.json");
    const auto ids = tokenizer->encode("Hello world, it's 2026!\n<|im_start|>user\n\xc3\xa9t\xc3\xa9 \xff");
    // Empty is an answer: a BPE model without an unknown token drops the characters its
    // vocabulary lacks, as Hugging Face's does, and a vocabulary may lack them all.
    for (const auto id : ids) {
      if (id < 0) std::abort();
    }
  } catch (const ironbench::error&) {
  }
  return 0;
}
