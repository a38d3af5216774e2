#include "serve/tokenizer/tokenizer_json_reader.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/json_text.hpp"
#include "serve/tokenizer/utf8_text.hpp"

namespace ironbench::serve::tokenization {

const tokenizer_json& member(const tokenizer_json& object, const char* key) {
  static const tokenizer_json none;
  const auto it = object.find(key);
  return it == object.end() ? none : *it;
}

std::string json_error_text(const tokenizer_json::exception& e) {
  const std::string_view text = e.what();
  const auto end = text.find("] ");
  return std::string(end == std::string_view::npos ? text : text.substr(end + 2));
}

std::int64_t token_id_of(const tokenizer_json& id, const std::string& path) {
  constexpr auto largest = std::numeric_limits<std::uint32_t>::max();
  const bool fits = id.is_number_unsigned() ? id.get<std::uint64_t>() <= largest
                                            : id.is_number_integer() && id.get<std::int64_t>() >= 0 &&
                                                  id.get<std::int64_t>() <= std::int64_t{largest};
  if (!fits)
    throw usage_error(fmt::format("{}: malformed tokenizer: the token id {} is not an integer from 0 to {}", path,
                                  core::json_text(id), largest));
  return id.get<std::int64_t>();
}

usage_error unsupported(const std::string& path, const std::string& what) {
  return usage_error(
      fmt::format("{}: {} is not supported (BPE and Unigram models with the normalizers and pre-tokenizers of "
                  "docs/serving-metrics.md, \"Tokenizer\", are)",
                  path, what));
}

std::string type_of(const tokenizer_json& item) {
  return item.is_null() ? std::string("?") : item.value("type", std::string("?"));
}

namespace {

// The precompiled_charsmap's bytes.
std::string base64_decode(std::string_view text, const std::string& path) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    int value = 0;
    if (c >= 'A' && c <= 'Z') {
      value = c - 'A';
    } else if (c >= 'a' && c <= 'z') {
      value = c - 'a' + 26;
    } else if (c >= '0' && c <= '9') {
      value = c - '0' + 52;
    } else if (c == '+') {
      value = 62;
    } else if (c == '/') {
      value = 63;
    } else if (c == '=') {
      break;
    } else {
      throw usage_error(fmt::format("{}: malformed tokenizer: the precompiled_charsmap is not base64", path));
    }
    buffer = (buffer << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

// A Split's or Replace's pattern: {"String": s} or {"Regex": r}.
void read_pattern(const tokenizer_json& pattern, std::string& literal, std::unique_ptr<regex>& re,
                  const std::string& path) {
  if (pattern.contains("Regex")) {
    re = std::make_unique<regex>(pattern.at("Regex").get<std::string>(), path);
  } else {
    literal = pattern.at("String").get<std::string>();
  }
}

// A split behaviour by its name in tokenizer.json.
split_behavior behavior_of(const std::string& name, const std::string& path) {
  if (name == "Removed") return split_behavior::removed;
  if (name == "Isolated") return split_behavior::isolated;
  if (name == "MergedWithPrevious") return split_behavior::merged_with_previous;
  if (name == "MergedWithNext") return split_behavior::merged_with_next;
  if (name == "Contiguous") return split_behavior::contiguous;
  throw unsupported(path, fmt::format("a Split with behavior '{}'", name));
}

// An optional string or number field that must be null (or absent, or empty) to be supported.
bool set(const tokenizer_json& model, const char* key) {
  if (!model.contains(key)) return false;
  const auto& v = model.at(key);
  return !(v.is_null() || (v.is_string() && v.get<std::string>().empty()) || (v.is_number() && v.get<double>() == 0.0));
}

}  // namespace

void add_normalizer(const tokenizer_json& item, std::vector<std::unique_ptr<normalizer>>& normalizers,
                    const std::string& path) {
  if (item.is_null()) return;
  const auto type = type_of(item);
  if (type == "Sequence") {
    for (const auto& n : item.at("normalizers")) add_normalizer(n, normalizers, path);
  } else if (type == "Prepend") {
    normalizers.push_back(std::make_unique<prepend_normalizer>(item.at("prepend").get<std::string>()));
  } else if (type == "Replace") {
    std::string literal;
    std::unique_ptr<regex> re;
    read_pattern(item.at("pattern"), literal, re, path);
    normalizers.push_back(
        std::make_unique<replace_normalizer>(std::move(literal), std::move(re), item.at("content").get<std::string>()));
  } else if (type == "Precompiled") {
    const auto& charsmap = item.at("precompiled_charsmap");
    if (charsmap.is_null()) return;  // what transformers writes for a model without rules
    normalizers.push_back(
        std::make_unique<precompiled_normalizer>(base64_decode(charsmap.get<std::string>(), path), path));
  } else {
    throw unsupported(path, fmt::format("normalizer '{}'", type));
  }
}

pre_tokenizer read_pre_tokenizer(const tokenizer_json& item, const std::string& path) {
  pre_tokenizer step;
  const auto type = type_of(item);
  if (type == "ByteLevel") {
    step.type = pre_tokenizer::kind::byte_level;
    step.add_prefix_space = item.value("add_prefix_space", false);
    if (item.value("use_regex", true)) step.pattern = std::make_unique<regex>(gpt2_pattern, path);
  } else if (type == "Split") {
    step.type = pre_tokenizer::kind::split;
    read_pattern(item.at("pattern"), step.literal, step.pattern, path);
    step.behavior = behavior_of(item.at("behavior").get<std::string>(), path);
    step.invert = item.value("invert", false);
  } else if (type == "Metaspace") {
    step.type = pre_tokenizer::kind::metaspace;
    step.replacement = item.at("replacement").get<std::string>();
    if (step.replacement.empty() || char_length(step.replacement, 0) != step.replacement.size())
      throw usage_error(fmt::format("{}: malformed tokenizer: Metaspace's replacement is not one character", path));
    // prepend_scheme (always by default); older files say add_prefix_space instead.
    const auto scheme = item.value("prepend_scheme", std::string("always"));
    if (scheme == "always") {
      step.prepend = prepend_scheme::always;
    } else if (scheme == "first") {
      step.prepend = prepend_scheme::first;
    } else if (scheme == "never") {
      step.prepend = prepend_scheme::never;
    } else {
      throw unsupported(path, fmt::format("Metaspace's prepend_scheme '{}'", scheme));
    }
    if (item.contains("add_prefix_space") && item.at("add_prefix_space").is_boolean() &&
        !item.at("add_prefix_space").get<bool>())
      step.prepend = prepend_scheme::never;
    step.split = item.value("split", true);
  } else if (type == "WhitespaceSplit") {
    step.type = pre_tokenizer::kind::whitespace_split;
  } else {
    throw unsupported(path, fmt::format("pre-tokenizer '{}'", type));
  }
  return step;
}

bpe_model read_bpe(const tokenizer_json& model, const std::string& path) {
  bpe_model bpe;
  if (set(model, "continuing_subword_prefix")) throw unsupported(path, "BPE's continuing_subword_prefix");
  if (set(model, "end_of_word_suffix")) throw unsupported(path, "BPE's end_of_word_suffix");
  if (set(model, "dropout")) throw unsupported(path, "BPE dropout");
  bpe.ignore_merges = model.value("ignore_merges", false);
  bpe.fuse_unk = model.value("fuse_unk", false);
  const auto& vocab = member(model, "vocab");
  if (!vocab.is_null() && !vocab.is_object())
    throw usage_error(fmt::format("{}: malformed tokenizer: BPE's vocab is not an object", path));
  bpe.vocab.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) bpe.vocab[token] = token_id_of(id, path);
  if (model.contains("unk_token") && model.at("unk_token").is_string()) {
    if (const auto it = bpe.vocab.find(model.at("unk_token").get<std::string>()); it != bpe.vocab.end())
      bpe.unk = it->second;
  }
  if (model.value("byte_fallback", false)) {
    bpe.byte_tokens.assign(256, -1);
    for (int b = 0; b < 256; ++b) {
      if (const auto it = bpe.vocab.find(fmt::format("<0x{:02X}>", b)); it != bpe.vocab.end())
        bpe.byte_tokens[static_cast<std::size_t>(b)] = it->second;
    }
  }
  std::size_t rank = 0;
  const auto& merges = member(model, "merges");
  if (!merges.is_null() && !merges.is_array())
    throw usage_error(fmt::format("{}: malformed tokenizer: BPE's merges are not a list", path));
  bpe.merges.reserve(merges.size());
  for (const auto& merge : merges) {
    std::pair<std::string, std::string> pair;
    if (merge.is_string()) {
      const auto text = merge.get<std::string>();
      const auto space = text.find(' ');
      if (space == std::string::npos) throw usage_error(fmt::format("{}: malformed merge '{}'", path, text));
      pair = {text.substr(0, space), text.substr(space + 1)};
    } else if (merge.is_array() && merge.size() == 2) {
      pair = {merge.at(0).get<std::string>(), merge.at(1).get<std::string>()};
    } else {
      throw usage_error(fmt::format("{}: malformed merge {}", path, core::json_text(merge)));
    }
    const auto a = bpe.vocab.find(pair.first), b = bpe.vocab.find(pair.second),
               merged = bpe.vocab.find(pair.first + pair.second);
    if (a == bpe.vocab.end() || b == bpe.vocab.end() || merged == bpe.vocab.end())
      throw usage_error(fmt::format("{}: malformed tokenizer: the merge '{} {}' has a token outside the vocabulary",
                                    path, pair.first, pair.second));
    // A pair merged twice keeps its last rank, as Hugging Face's map of merges does.
    bpe.merges.insert_or_assign({a->second, b->second}, std::pair{rank++, merged->second});
  }
  return bpe;
}

unigram_model read_unigram(const tokenizer_json& model, const std::string& path) {
  unigram_model unigram;
  const auto& vocab = model.at("vocab");
  if (!vocab.is_array()) throw usage_error(fmt::format("{}: malformed tokenizer: Unigram's vocab is not a list", path));
  unigram.pieces.reserve(vocab.size());
  unigram.scores.reserve(vocab.size());
  unigram.min_score = std::numeric_limits<double>::infinity();
  for (const auto& entry : vocab) {
    if (!entry.is_array() || entry.size() != 2 || !entry.at(1).is_number())
      throw usage_error(fmt::format("{}: malformed tokenizer: the Unigram piece {} is not [piece, score]", path,
                                    core::json_text(entry)));
    const auto id = static_cast<std::int64_t>(unigram.pieces.size());
    unigram.pieces.push_back(entry.at(0).get<std::string>());
    unigram.scores.push_back(entry.at(1).get<double>());
    unigram.ids.insert_or_assign(unigram.pieces.back(), id);
    unigram.min_score = std::min(unigram.min_score, unigram.scores.back());
  }
  if (model.contains("unk_id") && !model.at("unk_id").is_null()) {
    const auto unk = token_id_of(model.at("unk_id"), path);
    if (unk < 0 || static_cast<std::size_t>(unk) >= unigram.pieces.size())
      throw usage_error(fmt::format("{}: malformed tokenizer: Unigram's unk_id {} is not a piece", path, unk));
    unigram.unk = unk;
  }
  unigram.byte_fallback = model.value("byte_fallback", false);
  unigram.index();
  return unigram;
}

}  // namespace ironbench::serve::tokenization
