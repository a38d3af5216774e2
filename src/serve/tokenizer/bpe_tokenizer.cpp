#include "serve/tokenizer/bpe_tokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"

// Each step follows Hugging Face `tokenizers` (tokenizers/src/): the normalizers, the
// pre-tokenizers' splits (tokenizer/normalizer.rs `split`, tokenizer/pattern.rs), BPE
// (models/bpe/model.rs `merge_word`, word.rs `merge_all`), Unigram (models/unigram/model.rs
// `encode_optimized`) and Precompiled (the spm_precompiled crate, SentencePiece's
// normalizer.cc).

namespace ironbench::serve {
namespace {

// tokenizer.json is read into an unordered document: an ordered one looks keys up one by one,
// and a vocabulary has up to 262,144 of them (Gemma's), which would take minutes to read.
using tokenizer_json = nlohmann::json;

// The member `key` of `object`, or null where it has none (a reference: a vocabulary is not copied).
const tokenizer_json& member(const tokenizer_json& object, const char* key) {
  static const tokenizer_json none;
  const auto it = object.find(key);
  return it == object.end() ? none : *it;
}

// GPT-2's pattern, which ByteLevel uses when use_regex is true.
constexpr const char* gpt2_pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// GPT-2's reversible map from bytes to printable code points, as UTF-8 strings.
std::vector<std::string> byte_to_unicode() {
  std::vector<int> printable;
  for (int b = '!'; b <= '~'; ++b) printable.push_back(b);
  for (int b = 0xA1; b <= 0xAC; ++b) printable.push_back(b);
  for (int b = 0xAE; b <= 0xFF; ++b) printable.push_back(b);
  std::vector<int> code(256, -1);
  for (int b : printable) code[b] = b;
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    if (code[b] < 0) code[b] = next++;
  }
  std::vector<std::string> out(256);
  for (int b = 0; b < 256; ++b) {
    const int c = code[b];
    std::string s;
    if (c < 0x80) {
      s.push_back(static_cast<char>(c));
    } else {
      s.push_back(static_cast<char>(0xC0 | (c >> 6)));
      s.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
    out[b] = s;
  }
  return out;
}

// The length of the UTF-8 character at `i` by its first byte, cut at the end of `s` (a stray
// byte of text that is not UTF-8 is a character of its own).
std::size_t char_length(std::string_view s, std::size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return std::min(n, s.size() - i);
}

char32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[i + k])); };
  switch (n) {
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default: return b(0);
  }
}

// Rust's char::is_whitespace (Unicode's White_Space), what WhitespaceSplit splits on.
bool is_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The length of the longest prefix of `s` that is well-formed UTF-8.
std::size_t valid_utf8_prefix(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto lead = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    char32_t min = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    }
    if (lead >= 0xC2 && lead <= 0xDF) {
      n = 2, min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      n = 3, min = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      n = 4, min = 0x10000;
    } else {
      return i;
    }
    if (i + n > s.size()) return i;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    }
    const char32_t c = code_point(s, i, n);
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return i;
    i += n;
  }
  return i;
}

// A compiled PCRE2 pattern (UTF, Unicode properties).
class regex {
 public:
  regex(const std::string& pattern, const std::string& source) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error,
                          &offset, nullptr);
    if (code_ == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof message);
      throw usage_error(fmt::format("{}: the pattern '{}' does not compile at {}: {}", source, pattern, offset,
                                    reinterpret_cast<const char*>(message)));
    }
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
  }
  regex(const regex&) = delete;
  regex& operator=(const regex&) = delete;
  ~regex() { pcre2_code_free(code_); }

  // Every non-empty match in `text`, left to right ({begin, end} byte offsets). Text that is
  // not UTF-8 stops the search where it becomes invalid; `valid_utf8`: the caller checked it
  // (PCRE2 need not check it again at each match).
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> matches(std::string_view text,
                                                                         bool valid_utf8 = false) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_, nullptr);
    std::size_t position = 0;
    while (position <= text.size()) {
      const int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), position,
                                 valid_utf8 ? PCRE2_NO_UTF_CHECK : 0, match, nullptr);
      if (rc < 0) break;
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
      const std::size_t begin = ovector[0], end = ovector[1];
      if (end > begin) out.emplace_back(begin, end);
      position = end > begin ? end : end + 1;
      while (position < text.size() && (static_cast<unsigned char>(text[position]) & 0xC0) == 0x80) ++position;
    }
    pcre2_match_data_free(match);
    return out;
  }

 private:
  pcre2_code* code_ = nullptr;
};

// Extended grapheme clusters (PCRE2's \X), which the Precompiled normalizer works on. Bytes
// that are not UTF-8 are clusters of one byte.
class grapheme_splitter {
 public:
  grapheme_splitter() : cluster_(R"(\X)", "the grapheme pattern") {}

  template <typename F>
  void each(std::string_view text, F&& f) const {
    std::size_t start = 0;
    while (start < text.size()) {
      const auto valid = valid_utf8_prefix(text.substr(start));
      if (valid > 0) {
        const auto run = text.substr(start, valid);
        std::size_t at = 0;
        for (const auto& [begin, end] : cluster_.matches(run, true)) {
          for (; at < begin; ++at) f(run.substr(at, 1));  // not reached: \X covers every character
          f(run.substr(begin, end - begin));
          at = end;
        }
        for (; at < run.size(); ++at) f(run.substr(at, 1));
        start += valid;
      } else {
        f(text.substr(start, 1));
        ++start;
      }
    }
  }

 private:
  regex cluster_;
};

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string json_error_text(const tokenizer_json::exception& e) {
  const std::string_view text = e.what();
  const auto end = text.find("] ");
  return std::string(end == std::string_view::npos ? text : text.substr(end + 2));
}

// A token id: a JSON integer that fits int64 (nlohmann's get<> would convert 6e19 or 1.5).
std::int64_t token_id_of(const tokenizer_json& id, const std::string& path) {
  const bool fits = id.is_number_integer() &&
                    (!id.is_number_unsigned() ||
                     id.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!fits)
    throw usage_error(
        fmt::format("{}: malformed tokenizer: the token id {} is not an integer", path, core::json_text(id)));
  return id.get<std::int64_t>();
}

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

// --- Splitting (Hugging Face's NormalizedString::split) ---------------------------------------

struct span {
  std::size_t begin, end;
  bool match;
};

enum class split_behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// Matches and the gaps between them, in order, as Pattern::find_matches gives them.
std::vector<span> spans_of(std::string_view text, const std::vector<std::pair<std::size_t, std::size_t>>& matches) {
  std::vector<span> out;
  std::size_t previous = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > previous) out.push_back({previous, begin, false});
    out.push_back({begin, end, true});
    previous = end;
  }
  if (previous < text.size()) out.push_back({previous, text.size(), false});
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> literal_matches(std::string_view text, std::string_view literal) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (literal.empty()) return out;
  for (auto at = text.find(literal); at != std::string_view::npos; at = text.find(literal, at + literal.size())) {
    out.emplace_back(at, at + literal.size());
  }
  return out;
}

// Each character for which `is_delimiter` holds is a match of its own.
template <typename F>
std::vector<std::pair<std::size_t, std::size_t>> char_matches(std::string_view text, F&& is_delimiter) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto n = char_length(text, i);
    if (is_delimiter(text.substr(i, n))) out.emplace_back(i, i + n);
    i += n;
  }
  return out;
}

// The ranges to keep of `spans` under `behavior` (Removed drops the matches).
std::vector<std::pair<std::size_t, std::size_t>> apply_behavior(const std::vector<span>& spans,
                                                                split_behavior behavior) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  switch (behavior) {
    case split_behavior::removed:
      for (const auto& s : spans)
        if (!s.match) out.emplace_back(s.begin, s.end);
      break;
    case split_behavior::isolated:
      for (const auto& s : spans) out.emplace_back(s.begin, s.end);
      break;
    case split_behavior::contiguous: {
      bool previous_match = false;
      for (const auto& s : spans) {
        if (s.match == previous_match && !out.empty()) {
          out.back().second = s.end;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    }
    case split_behavior::merged_with_previous: {
      bool previous_match = false;
      for (const auto& s : spans) {
        if (s.match && !previous_match && !out.empty()) {
          out.back().second = s.end;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    }
    case split_behavior::merged_with_next: {
      bool previous_match = false;
      for (std::size_t k = spans.size(); k-- > 0;) {
        const auto& s = spans[k];
        if (s.match && !previous_match && !out.empty()) {
          out.back().first = s.begin;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      std::reverse(out.begin(), out.end());
      break;
    }
  }
  return out;
}

// A stretch of text on its way through the pre-tokenizers; `at_start`: it begins where the
// whole text begins (Metaspace's prepend_scheme "first" prepends only there).
struct piece {
  std::string text;
  bool at_start = false;
};

void split_piece(const piece& p, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
                 split_behavior behavior, bool invert, std::vector<piece>& out) {
  auto spans = spans_of(p.text, matches);
  if (invert)
    for (auto& s : spans) s.match = !s.match;
  for (const auto& [begin, end] : apply_behavior(spans, behavior)) {
    if (end > begin) out.push_back({p.text.substr(begin, end - begin), p.at_start && begin == 0});
  }
}

// --- Normalizers --------------------------------------------------------------------------------

class normalizer {
 public:
  virtual ~normalizer() = default;
  virtual void apply(std::string& text) const = 0;
};

class prepend_normalizer : public normalizer {
 public:
  explicit prepend_normalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  void apply(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class replace_normalizer : public normalizer {
 public:
  replace_normalizer(std::string literal, std::unique_ptr<regex> pattern, std::string content)
      : literal_(std::move(literal)), pattern_(std::move(pattern)), content_(std::move(content)) {}
  void apply(std::string& text) const override {
    const auto matches = pattern_ ? pattern_->matches(text) : literal_matches(text, literal_);
    if (matches.empty()) return;
    std::string out;
    std::size_t previous = 0;
    for (const auto& [begin, end] : matches) {
      out.append(text, previous, begin - previous);
      out += content_;
      previous = end;
    }
    out.append(text, previous, std::string::npos);
    text = std::move(out);
  }

 private:
  std::string literal_;
  std::unique_ptr<regex> pattern_;
  std::string content_;
};

// SentencePiece's compiled normalization rules (`precompiled_charsmap`): a little-endian u32
// giving the size of a Darts double-array trie of u32 units, the trie, then the normalized
// strings, each ending in a NUL, which the trie's values point into.
class precompiled_normalizer : public normalizer {
 public:
  precompiled_normalizer(const std::string& blob, const std::string& path) {
    const auto malformed = [&] {
      return usage_error(fmt::format("{}: malformed tokenizer: the precompiled_charsmap is not a compiled trie", path));
    };
    if (blob.size() < 4) throw malformed();
    const auto u32 = [&](std::size_t at) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at])) |
             static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 1])) << 8 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 2])) << 16 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(blob[at + 3])) << 24;
    };
    const std::size_t trie_bytes = u32(0);
    if (trie_bytes > blob.size() - 4) throw malformed();
    trie_.reserve(trie_bytes / 4);
    for (std::size_t at = 4; at + 4 <= 4 + trie_bytes; at += 4) trie_.push_back(u32(at));
    normalized_ = blob.substr(4 + trie_bytes / 4 * 4);
  }

  void apply(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    graphemes_.each(text, [&](std::string_view grapheme) {
      // As Hugging Face does (spm_precompiled): a cluster shorter than 6 bytes is replaced
      // whole by what its shortest prefix in the trie maps to; otherwise each character is.
      if (grapheme.size() < 6) {
        if (const auto norm = transform(grapheme)) {
          out += *norm;
          return;
        }
      }
      for (std::size_t i = 0; i < grapheme.size();) {
        const auto n = char_length(grapheme, i);
        const auto part = grapheme.substr(i, n);
        if (const auto norm = transform(part)) {
          out += *norm;
        } else {
          out += part;
        }
        i += n;
      }
    });
    text = std::move(out);
  }

 private:
  // What the shortest key of the trie that prefixes `chunk` maps to (Darts' commonPrefixSearch,
  // first result); nullopt where no key does.
  [[nodiscard]] std::optional<std::string_view> transform(std::string_view chunk) const {
    const auto offset = [](std::uint32_t unit) -> std::size_t { return (unit >> 10) << ((unit & (1U << 9)) >> 6); };
    if (trie_.empty()) return std::nullopt;
    std::size_t node = offset(trie_[0]);
    for (const char ch : chunk) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == 0) break;
      node ^= c;
      if (node >= trie_.size()) return std::nullopt;
      const std::uint32_t unit = trie_[node];
      if ((unit & ((1U << 31) | 0xFF)) != c) return std::nullopt;
      node ^= offset(unit);
      if (node >= trie_.size()) return std::nullopt;
      if (((unit >> 8) & 1) != 0) {
        const std::size_t index = trie_[node] & ((1U << 31) - 1);
        if (index > normalized_.size()) return std::nullopt;
        const auto end = normalized_.find('\0', index);
        return std::string_view(normalized_).substr(index, end == std::string::npos ? end : end - index);
      }
    }
    return std::nullopt;
  }

  std::vector<std::uint32_t> trie_;
  std::string normalized_;
  grapheme_splitter graphemes_;
};

// --- Pre-tokenizers -----------------------------------------------------------------------------

enum class prepend_scheme { always, first, never };

struct pre_tokenizer {
  enum class kind { byte_level, split, metaspace, whitespace_split } type = kind::split;
  // ByteLevel
  bool add_prefix_space = false;
  std::unique_ptr<regex> pattern;  // ByteLevel's regex (use_regex) or Split's
  // Split
  std::string literal;
  split_behavior behavior = split_behavior::isolated;
  bool invert = false;
  // Metaspace
  std::string replacement;
  prepend_scheme prepend = prepend_scheme::always;
  bool split = true;
};

// --- Models -------------------------------------------------------------------------------------

struct pair_hash {
  std::size_t operator()(const std::pair<std::int64_t, std::int64_t>& p) const {
    return std::hash<std::int64_t>()(p.first) * 1000003 ^ std::hash<std::int64_t>()(p.second);
  }
};

struct bpe_model {
  std::unordered_map<std::string, std::int64_t> vocab;
  std::unordered_map<std::pair<std::int64_t, std::int64_t>, std::pair<std::size_t, std::int64_t>, pair_hash>
      merges;  // pair of ids -> rank, id of the merged token
  std::optional<std::int64_t> unk;
  std::vector<std::int64_t> byte_tokens;  // <0xXX> by byte, -1 where missing; empty without byte_fallback
  bool fuse_unk = false;
  bool ignore_merges = false;

  struct symbol {
    std::int64_t id;
    std::ptrdiff_t prev, next;
    bool removed;
  };

  // models/bpe/model.rs `merge_word`, then word.rs `merge_all` (without dropout).
  void encode(const std::string& word, std::vector<std::int64_t>& out) const {
    if (ignore_merges) {
      if (const auto it = vocab.find(word); it != vocab.end()) {
        out.push_back(it->second);
        return;
      }
    }
    std::vector<std::int64_t> ids;
    std::optional<std::int64_t> pending_unk;
    for (std::size_t i = 0; i < word.size();) {
      const auto n = char_length(word, i);
      const auto it = vocab.find(word.substr(i, n));
      i += n;
      if (it != vocab.end()) {
        if (pending_unk) ids.push_back(*std::exchange(pending_unk, std::nullopt));
        ids.push_back(it->second);
        continue;
      }
      if (!byte_tokens.empty() &&
          std::all_of(word.begin() + static_cast<std::ptrdiff_t>(i - n), word.begin() + static_cast<std::ptrdiff_t>(i),
                      [&](char b) { return byte_tokens[static_cast<unsigned char>(b)] >= 0; })) {
        // As Hugging Face does, a pending unknown token is not flushed before byte tokens.
        for (std::size_t k = i - n; k < i; ++k) ids.push_back(byte_tokens[static_cast<unsigned char>(word[k])]);
        continue;
      }
      if (!unk) continue;  // no unknown token: the character is dropped, as Hugging Face drops it
      if (pending_unk && !fuse_unk) ids.push_back(*pending_unk);
      pending_unk = unk;
    }
    if (pending_unk) ids.push_back(*pending_unk);

    std::vector<symbol> symbols(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      symbols[i] = {ids[i], static_cast<std::ptrdiff_t>(i) - 1,
                    i + 1 < ids.size() ? static_cast<std::ptrdiff_t>(i) + 1 : -1, false};
    }
    struct candidate {
      std::size_t rank, pos;
      std::int64_t new_id;
      bool operator>(const candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<candidate, std::vector<candidate>, std::greater<>> queue;
    const auto push = [&](std::size_t pos) {
      if (symbols[pos].next < 0) return;
      const auto it = merges.find({symbols[pos].id, symbols[static_cast<std::size_t>(symbols[pos].next)].id});
      if (it != merges.end()) queue.push({it->second.first, pos, it->second.second});
    };
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) push(i);
    while (!queue.empty()) {
      const auto top = queue.top();
      queue.pop();
      auto& current = symbols[top.pos];
      if (current.removed || current.next < 0) continue;
      const auto next_pos = static_cast<std::size_t>(current.next);
      const auto it = merges.find({current.id, symbols[next_pos].id});
      if (it == merges.end() || it->second.second != top.new_id) continue;  // an expired entry
      current.id = top.new_id;
      current.next = symbols[next_pos].next;
      symbols[next_pos].removed = true;
      if (current.next >= 0)
        symbols[static_cast<std::size_t>(current.next)].prev = static_cast<std::ptrdiff_t>(top.pos);
      if (current.prev >= 0) push(static_cast<std::size_t>(current.prev));
      push(top.pos);
    }
    for (const auto& s : symbols)
      if (!s.removed) out.push_back(s.id);
  }
};

struct unigram_model {
  std::vector<std::string> pieces;
  std::vector<double> scores;
  std::unordered_map<std::string, std::int64_t> ids;  // the last of equal pieces, as Hugging Face keeps
  std::vector<std::uint32_t> sorted;                  // piece indices in byte order, for prefix search
  double min_score = 0;
  std::optional<std::int64_t> unk;
  bool byte_fallback = false;

  void index() {
    sorted.resize(pieces.size());
    for (std::uint32_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
    std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) { return pieces[a] < pieces[b]; });
  }

  // Calls f(length, id) for each piece that prefixes `text`, shortest first.
  template <typename F>
  void prefixes(std::string_view text, F&& f) const {
    auto lo = sorted.begin(), hi = sorted.end();
    for (std::size_t depth = 0; depth < text.size() && lo != hi; ++depth) {
      const int c = static_cast<unsigned char>(text[depth]);
      const auto key = [&](std::uint32_t i) {
        return pieces[i].size() > depth ? static_cast<int>(static_cast<unsigned char>(pieces[i][depth])) : -1;
      };
      lo = std::lower_bound(lo, hi, c, [&](std::uint32_t i, int value) { return key(i) < value; });
      hi = std::upper_bound(lo, hi, c, [&](int value, std::uint32_t i) { return value < key(i); });
      if (lo != hi && pieces[*lo].size() == depth + 1) f(depth + 1, ids.at(pieces[*lo]));
    }
  }

  // models/unigram/model.rs `encode_optimized` (Viterbi), then `tokenize` (byte fallback).
  void encode(const std::string& text, std::vector<std::int64_t>& out) const {
    constexpr double unk_penalty = 10.0;
    const double unk_score = min_score - unk_penalty;
    struct node {
      std::int64_t id = 0;
      double score = 0;
      std::optional<std::size_t> starts_at;
    };
    std::vector<node> best(text.size() + 1);
    for (std::size_t at = 0; at < text.size();) {
      const double here = best[at].score;
      const auto length = char_length(text, at);
      bool has_single = false;
      prefixes(std::string_view(text).substr(at), [&](std::size_t n, std::int64_t id) {
        auto& target = best[at + n];
        const double candidate = scores[static_cast<std::size_t>(id)] + here;
        if (!target.starts_at || candidate > target.score) {
          target = {id, candidate, at};
        }
        if (n == length) has_single = true;
      });
      if (!has_single) {
        auto& target = best[at + length];
        const double candidate = unk_score + here;
        if (!target.starts_at || candidate > target.score) {
          if (!unk)
            throw error(fmt::format("tokenizer: no piece for '{}' and no unknown token", text.substr(at, length)));
          target = {*unk, candidate, at};
        }
      }
      at += length;
    }
    // Back from the end; runs of the unknown token are one (fuse_unk, always on for Unigram).
    std::vector<std::pair<std::size_t, std::size_t>> path;  // {begin, end} of each piece, reversed
    std::vector<bool> unknown;
    for (std::size_t end = text.size(); end > 0;) {
      const auto& n = best[end];
      if (!n.starts_at) break;  // not reached: every character ends a node
      const auto begin = *n.starts_at;
      const bool is_unk = unk && n.id == *unk;
      if (is_unk && !unknown.empty() && unknown.back()) {
        path.back().first = begin;
      } else {
        path.emplace_back(begin, end);
        unknown.push_back(is_unk);
      }
      end = begin;
    }
    for (std::size_t k = path.size(); k-- > 0;) {
      const auto [begin, end] = path[k];
      const auto token = text.substr(begin, end - begin);
      if (const auto it = ids.find(token); it != ids.end()) {
        out.push_back(it->second);
        continue;
      }
      if (byte_fallback) {
        std::vector<std::int64_t> bytes;
        for (const char b : token) {
          const auto it = ids.find(fmt::format("<0x{:02X}>", static_cast<unsigned char>(b)));
          if (it == ids.end()) break;
          bytes.push_back(it->second);
        }
        if (bytes.size() == token.size()) {
          out.insert(out.end(), bytes.begin(), bytes.end());
          continue;
        }
      }
      if (!unk) throw error(fmt::format("tokenizer: no piece for '{}' and no unknown token", token));
      out.push_back(*unk);
    }
  }
};

}  // namespace

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

  void pre_tokenize(const pre_tokenizer& step, std::vector<piece>& pieces) const {
    std::vector<piece> next;
    for (auto& p : pieces) {
      switch (step.type) {
        case pre_tokenizer::kind::byte_level: {
          if (step.add_prefix_space && p.text.front() != ' ') p.text.insert(0, " ");
          std::vector<piece> words;
          if (step.pattern) {
            split_piece(p, step.pattern->matches(p.text), split_behavior::isolated, false, words);
          } else {
            words.push_back(std::move(p));
          }
          for (auto& w : words) {
            std::string mapped;
            for (const unsigned char c : w.text) mapped += byte_map[c];
            next.push_back({std::move(mapped), w.at_start});
          }
          break;
        }
        case pre_tokenizer::kind::split:
          split_piece(p, step.pattern ? step.pattern->matches(p.text) : literal_matches(p.text, step.literal),
                      step.behavior, step.invert, next);
          break;
        case pre_tokenizer::kind::whitespace_split:
          split_piece(
              p, char_matches(p.text, [](std::string_view c) { return is_whitespace(code_point(c, 0, c.size())); }),
              split_behavior::removed, false, next);
          break;
        case pre_tokenizer::kind::metaspace: {
          std::string text;
          for (const char c : p.text) {
            if (c == ' ') {
              text += step.replacement;
            } else {
              text.push_back(c);
            }
          }
          const bool prepend =
              step.prepend == prepend_scheme::always || (step.prepend == prepend_scheme::first && p.at_start);
          if (prepend && text.compare(0, step.replacement.size(), step.replacement) != 0)
            text.insert(0, step.replacement);
          piece replaced{std::move(text), p.at_start};
          if (step.split) {
            split_piece(replaced, literal_matches(replaced.text, step.replacement), split_behavior::merged_with_next,
                        false, next);
          } else {
            next.push_back(std::move(replaced));
          }
          break;
        }
      }
    }
    pieces = std::move(next);
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
    for (const auto& step : pre_tokenizers) pre_tokenize(step, pieces);
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

namespace {

// Where a supported part is missing, the one-line refusal names it.
usage_error unsupported(const std::string& path, const std::string& what) {
  return usage_error(
      fmt::format("{}: {} is not supported (BPE and Unigram models with the normalizers and pre-tokenizers of "
                  "docs/metrics.md, \"Tokenizer\", are)",
                  path, what));
}

// An item's "type" ("?" without one); an item that is no object is a malformed tokenizer
// (nlohmann's type error).
std::string type_of(const tokenizer_json& item) {
  return item.is_null() ? std::string("?") : item.value("type", std::string("?"));
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

split_behavior behavior_of(const std::string& name, const std::string& path) {
  if (name == "Removed") return split_behavior::removed;
  if (name == "Isolated") return split_behavior::isolated;
  if (name == "MergedWithPrevious") return split_behavior::merged_with_previous;
  if (name == "MergedWithNext") return split_behavior::merged_with_next;
  if (name == "Contiguous") return split_behavior::contiguous;
  throw unsupported(path, fmt::format("a Split with behavior '{}'", name));
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

// An optional string or number field that must be null (or absent, or empty) to be supported.
bool set(const tokenizer_json& model, const char* key) {
  if (!model.contains(key)) return false;
  const auto& v = model.at(key);
  return !(v.is_null() || (v.is_string() && v.get<std::string>().empty()) || (v.is_number() && v.get<double>() == 0.0));
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

}  // namespace

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
