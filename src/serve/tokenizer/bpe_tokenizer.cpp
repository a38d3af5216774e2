#include "serve/tokenizer/bpe_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "serve/tokenizer/tokenizer_json_reader.hpp"
#include "serve/tokenizer/utf8_text.hpp"

// Each step follows Hugging Face `tokenizers` (tokenizers/src/): the normalizers
// (normalizers.hpp), the pre-tokenizers' splits (pre_tokenizer.hpp, text_split.hpp), BPE
// (bpe_model.hpp), Unigram (unigram_model.hpp) and Precompiled (the spm_precompiled crate,
// SentencePiece's normalizer.cc). This file holds the pipeline: added tokens first, then each
// stretch between them normalized, pre-tokenized and encoded, with a bounded cache of words.

namespace ironbench::serve {

using tokenization::add_normalizer;
using tokenization::bpe_model;
using tokenization::byte_to_unicode;
using tokenization::char_length;
using tokenization::code_point;
using tokenization::is_whitespace;
using tokenization::json_error_text;
using tokenization::member;
using tokenization::normalizer;
using tokenization::piece;
using tokenization::pre_tokenizer;
using tokenization::read_bpe;
using tokenization::read_pre_tokenizer;
using tokenization::read_unigram;
using tokenization::token_id_of;
using tokenization::tokenizer_json;
using tokenization::type_of;
using tokenization::unigram_model;
using tokenization::unsupported;

struct bpe_tokenizer::impl {
  std::vector<std::unique_ptr<normalizer>> normalizers;  // applied in order
  std::vector<pre_tokenizer> pre_tokenizers;             // applied in order
  std::optional<bpe_model> bpe;
  std::optional<unigram_model> unigram;
  // An added token; lstrip / rstrip: the white space before / after it is part of its match.
  struct added_token {
    std::string content;
    std::int64_t id = 0;
    bool lstrip = false, rstrip = false;
  };
  std::vector<added_token> added;  // longest first
  std::vector<std::string> byte_map = byte_to_unicode();
  mutable std::mutex cache_mutex;
  mutable std::unordered_map<std::string, std::vector<std::int64_t>> cache;
  mutable std::size_t cache_bytes = 0;  // of the entries in `cache` (cache_entry_bytes)
  // Longer words (a whole prompt, where no pre-tokenizer splits it) are not remembered.
  static constexpr std::size_t cacheable_word_bytes = 4096;

  // What an entry costs: its word, its ids and about 64 bytes of node and bucket.
  static std::size_t cache_entry_bytes(const std::string& word, const std::vector<std::int64_t>& ids) {
    return word.size() + ids.size() * sizeof(std::int64_t) + 64;
  }

  void encode_word(const std::string& word, std::vector<std::int64_t>& out) const {
    if (bpe) {
      bpe->encode(word, out);
    } else {
      unigram->encode(word, out);
    }
  }

  // Normalizes, pre-tokenizes and encodes a stretch of text without added tokens in it;
  // `at_start`: the stretch begins the whole text.
  void encode_plain(std::string_view text, bool at_start, std::vector<std::int64_t>& out) const {
    std::string normalized(text);
    for (const auto& n : normalizers) n->apply(normalized);
    if (normalized.empty()) return;
    std::vector<piece> pieces{{std::move(normalized), at_start}};
    for (const auto& step : pre_tokenizers) tokenization::pre_tokenize(step, byte_map, pieces);
    for (auto& p : pieces) {
      auto& word = p.text;
      if (word.size() > cacheable_word_bytes) {
        encode_word(word, out);
        continue;
      }
      {
        std::lock_guard lock(cache_mutex);
        if (const auto it = cache.find(word); it != cache.end()) {
          out.insert(out.end(), it->second.begin(), it->second.end());
          continue;
        }
      }
      std::vector<std::int64_t> ids;
      encode_word(word, ids);
      out.insert(out.end(), ids.begin(), ids.end());
      const auto entry_bytes = cache_entry_bytes(word, ids);
      std::lock_guard lock(cache_mutex);
      if (cache_bytes + entry_bytes <= cache_byte_limit && cache.emplace(std::move(word), std::move(ids)).second) {
        cache_bytes += entry_bytes;
      }
    }
  }
};

bpe_tokenizer::bpe_tokenizer(std::unique_ptr<impl> state) : impl_(std::move(state)) {}
bpe_tokenizer::~bpe_tokenizer() = default;

std::size_t bpe_tokenizer::vocab_size() const {
  return impl_->bpe ? impl_->bpe->vocab.size() : impl_->unigram->pieces.size();
}

std::size_t bpe_tokenizer::cache_bytes() const {
  std::lock_guard lock(impl_->cache_mutex);
  return impl_->cache_bytes;
}

std::unique_ptr<bpe_tokenizer> bpe_tokenizer::load(const std::string& path) {
  return from_json(core::read_bounded_file(path, core::file_kinds::tokenizer), path);
}

std::unique_ptr<bpe_tokenizer> bpe_tokenizer::from_json(std::string_view text, const std::string& path) {
  const auto j = tokenizer_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw usage_error(fmt::format("{}: not a JSON tokenizer", path));
  // A value of the wrong type or a missing key deep in the file ("id": "7", a Sequence without
  // "pretokenizers") is a malformed tokenizer, reported in one line like the rest.
  try {
    auto state = std::make_unique<impl>();
    const auto& model = member(j, "model");
    const auto model_type = type_of(model);
    if (model_type == "BPE") {
      state->bpe = read_bpe(model, path);
    } else if (model_type == "Unigram") {
      state->unigram = read_unigram(model, path);
    } else {
      throw unsupported(path, fmt::format("model '{}'", model_type));
    }
    if (j.contains("normalizer")) add_normalizer(j.at("normalizer"), state->normalizers, path);
    for (const auto& a : member(j, "added_tokens")) {
      impl::added_token token{a.at("content").get<std::string>(), token_id_of(a.at("id"), path),
                              a.value("lstrip", false), a.value("rstrip", false)};
      if (a.value("single_word", false))
        throw unsupported(path, fmt::format("the added token '{}' with single_word", token.content));
      // Hugging Face matches a token marked normalized in the normalized text, against its
      // normalized content: with a normalizer, that is not done here (no real file of the
      // supported families marks its added tokens so).
      if (a.value("normalized", false) && !state->normalizers.empty())
        throw unsupported(path,
                          fmt::format("the added token '{}' with normalized: true beside a normalizer", token.content));
      state->added.push_back(std::move(token));
    }
    std::sort(state->added.begin(), state->added.end(),
              [](const auto& x, const auto& y) { return x.content.size() > y.content.size(); });
    const auto& p = member(j, "pre_tokenizer");
    if (p.is_object() && type_of(p) == "Sequence") {
      for (const auto& item : p.at("pretokenizers")) state->pre_tokenizers.push_back(read_pre_tokenizer(item, path));
    } else if (!p.is_null()) {
      state->pre_tokenizers.push_back(read_pre_tokenizer(p, path));
    }
    return std::unique_ptr<bpe_tokenizer>(new bpe_tokenizer(std::move(state)));
  } catch (const tokenizer_json::exception& e) {
    throw usage_error(fmt::format("{}: malformed tokenizer: {}", path, json_error_text(e)));
  }
}

std::vector<std::int64_t> bpe_tokenizer::encode(std::string_view text) const {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start < text.size()) {
    // The earliest added token (longest at a tie) splits the text.
    std::size_t best_at = std::string_view::npos;
    const impl::added_token* best = nullptr;
    for (const auto& a : impl_->added) {
      if (a.content.empty()) continue;
      const auto at = text.find(a.content, start);
      if (at != std::string_view::npos && (best == nullptr || at < best_at)) {
        best_at = at;
        best = &a;
      }
    }
    auto end = best == nullptr ? text.size() : best_at;
    auto after = best == nullptr ? text.size() : best_at + best->content.size();
    if (best != nullptr && best->lstrip) {
      // Back over the white space before it (not before `start`: another match's end).
      while (end > start) {
        auto begin = end - 1;
        while (begin > start && (static_cast<unsigned char>(text[begin]) & 0xC0) == 0x80) --begin;
        if (!is_whitespace(code_point(text, begin, end - begin))) break;
        end = begin;
      }
    }
    if (best != nullptr && best->rstrip) {
      while (after < text.size()) {
        const auto n = char_length(text, after);
        if (!is_whitespace(code_point(text, after, n))) break;
        after += n;
      }
    }
    if (end > start) impl_->encode_plain(text.substr(start, end - start), start == 0, out);
    if (best == nullptr) break;
    out.push_back(best->id);
    start = after;
  }
  return out;
}

}  // namespace ironbench::serve
