#include "serve/tokenizer/bpe_tokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"

namespace ironbench::serve {
namespace {

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
      throw usage_error(fmt::format("{}: the pre-tokenizer pattern does not compile at {}: {}", source, offset,
                                    reinterpret_cast<const char*>(message)));
    }
    pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE);
  }
  regex(const regex&) = delete;
  regex& operator=(const regex&) = delete;
  ~regex() { pcre2_code_free(code_); }

  // Splits `text` as Split(behavior = Isolated): every match and every gap between matches.
  void split(std::string_view text, std::vector<std::string_view>& out) const {
    pcre2_match_data* match = pcre2_match_data_create_from_pattern(code_, nullptr);
    std::size_t position = 0;
    std::size_t gap_start = 0;
    while (position <= text.size()) {
      const int rc =
          pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), position, 0, match, nullptr);
      if (rc < 0) break;
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match);
      const std::size_t begin = ovector[0], end = ovector[1];
      if (begin > gap_start) out.push_back(text.substr(gap_start, begin - gap_start));
      if (end > begin) out.push_back(text.substr(begin, end - begin));
      gap_start = end;
      position = end > begin ? end : end + 1;
      while (position < text.size() && (static_cast<unsigned char>(text[position]) & 0xC0) == 0x80) ++position;
    }
    if (gap_start < text.size()) out.push_back(text.substr(gap_start));
    pcre2_match_data_free(match);
  }

 private:
  pcre2_code* code_ = nullptr;
};

// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string json_error_text(const json::exception& e) {
  const std::string_view text = e.what();
  const auto end = text.find("] ");
  return std::string(end == std::string_view::npos ? text : text.substr(end + 2));
}

// A token id: a JSON integer that fits int64 (nlohmann's get<> would convert 6e19 or 1.5).
std::int64_t token_id_of(const json& id, const std::string& path) {
  const bool fits = id.is_number_integer() &&
                    (!id.is_number_unsigned() ||
                     id.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!fits)
    throw usage_error(
        fmt::format("{}: malformed tokenizer: the token id {} is not an integer", path, core::json_text(id)));
  return id.get<std::int64_t>();
}

struct pair_hash {
  std::size_t operator()(const std::pair<std::string, std::string>& p) const {
    return std::hash<std::string>()(p.first) * 31 + std::hash<std::string>()(p.second);
  }
};

}  // namespace

struct bpe_tokenizer::impl {
  std::unordered_map<std::string, std::int64_t> vocab;
  std::unordered_map<std::pair<std::string, std::string>, int, pair_hash> merge_rank;
  std::vector<std::pair<std::string, std::int64_t>> added;  // content, id (longest first)
  std::vector<std::unique_ptr<regex>> splits;               // applied in order
  bool byte_level = false;
  bool add_prefix_space = false;
  bool ignore_merges = false;
  std::vector<std::string> byte_map = byte_to_unicode();
  mutable std::mutex cache_mutex;
  mutable std::unordered_map<std::string, std::vector<std::int64_t>> cache;
  mutable std::size_t cache_bytes = 0;  // of the entries in `cache` (cache_entry_bytes)

  // What an entry costs: its word, its ids and about 64 bytes of node and bucket.
  static std::size_t cache_entry_bytes(const std::string& word, const std::vector<std::int64_t>& ids) {
    return word.size() + ids.size() * sizeof(std::int64_t) + 64;
  }

  void bpe(const std::string& word, std::vector<std::int64_t>& out, const std::string& source) const {
    if (ignore_merges) {
      if (const auto it = vocab.find(word); it != vocab.end()) {
        out.push_back(it->second);
        return;
      }
    }
    std::vector<std::string> symbols;  // UTF-8 characters
    for (std::size_t i = 0; i < word.size();) {
      std::size_t length = 1;
      const auto lead = static_cast<unsigned char>(word[i]);
      if (lead >= 0xF0)
        length = 4;
      else if (lead >= 0xE0)
        length = 3;
      else if (lead >= 0xC0)
        length = 2;
      symbols.push_back(word.substr(i, length));
      i += length;
    }
    while (symbols.size() > 1) {
      int best = INT_MAX;
      std::size_t at = 0;
      for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
        const auto it = merge_rank.find({symbols[i], symbols[i + 1]});
        if (it != merge_rank.end() && it->second < best) {
          best = it->second;
          at = i;
        }
      }
      if (best == INT_MAX) break;
      // Merge every occurrence of the best pair, left to right.
      const std::string first = symbols[at], second = symbols[at + 1];
      std::vector<std::string> merged;
      for (std::size_t i = 0; i < symbols.size();) {
        if (i + 1 < symbols.size() && symbols[i] == first && symbols[i + 1] == second) {
          merged.push_back(first + second);
          i += 2;
        } else {
          merged.push_back(symbols[i]);
          ++i;
        }
      }
      symbols = std::move(merged);
    }
    for (const auto& s : symbols) {
      const auto it = vocab.find(s);
      if (it == vocab.end())
        throw error(fmt::format("{}: no token for '{}' (the vocabulary is incomplete)", source, s));
      out.push_back(it->second);
    }
  }

  // Pre-tokenizes and encodes a stretch of text without added tokens in it.
  void encode_plain(std::string_view text, std::vector<std::int64_t>& out) const {
    std::vector<std::string_view> pieces{text};
    std::string prefixed;
    if (add_prefix_space && !text.empty() && text.front() != ' ') {
      prefixed = " " + std::string(text);
      pieces = {prefixed};
    }
    for (const auto& r : splits) {
      std::vector<std::string_view> next;
      for (auto p : pieces) r->split(p, next);
      pieces = std::move(next);
    }
    for (auto piece : pieces) {
      std::string word;
      if (byte_level) {
        for (unsigned char c : piece) word += byte_map[c];
      } else {
        word = std::string(piece);
      }
      {
        std::lock_guard lock(cache_mutex);
        if (const auto it = cache.find(word); it != cache.end()) {
          out.insert(out.end(), it->second.begin(), it->second.end());
          continue;
        }
      }
      std::vector<std::int64_t> ids;
      bpe(word, ids, "tokenizer");
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

std::size_t bpe_tokenizer::vocab_size() const { return impl_->vocab.size(); }

std::size_t bpe_tokenizer::cache_bytes() const {
  std::lock_guard lock(impl_->cache_mutex);
  return impl_->cache_bytes;
}

std::unique_ptr<bpe_tokenizer> bpe_tokenizer::load(const std::string& path) {
  return from_json(core::read_bounded_file(path, core::file_kinds::tokenizer), path);
}

std::unique_ptr<bpe_tokenizer> bpe_tokenizer::from_json(std::string_view text, const std::string& path) {
  const auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw usage_error(fmt::format("{}: not a JSON tokenizer", path));
  // A value of the wrong type or a missing key deep in the file ("id": "7", a Sequence without
  // "pretokenizers") is a malformed tokenizer, reported in one line like the rest.
  try {
    auto state = std::make_unique<impl>();
    const auto unsupported = [&](const std::string& what) {
      return usage_error(fmt::format("{}: {} is not supported (byte-level BPE tokenizers are)", path, what));
    };
    if (j.contains("normalizer") && !j.at("normalizer").is_null()) {
      throw unsupported(fmt::format("normalizer {}", j.at("normalizer").value("type", std::string("?"))));
    }
    const auto& model = j.value("model", json::object());
    if (model.value("type", std::string()) != "BPE")
      throw unsupported(fmt::format("model '{}'", model.value("type", std::string("?"))));
    state->ignore_merges = model.value("ignore_merges", false);
    const json vocab = model.value("vocab", json::object());  // named: items() must not outlive it
    for (const auto& [token, id] : vocab.items()) state->vocab[token] = token_id_of(id, path);
    int rank = 0;
    for (const auto& merge : model.value("merges", json::array())) {
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
      state->merge_rank.emplace(std::move(pair), rank++);
    }
    for (const auto& a : j.value("added_tokens", json::array())) {
      state->added.emplace_back(a.at("content").get<std::string>(), token_id_of(a.at("id"), path));
    }
    std::sort(state->added.begin(), state->added.end(),
              [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
    std::vector<json> pre;
    const auto& p = j.value("pre_tokenizer", json());
    if (p.is_object() && p.value("type", std::string()) == "Sequence") {
      for (const auto& item : p.at("pretokenizers")) pre.push_back(item);
    } else if (p.is_object()) {
      pre.push_back(p);
    }
    for (const auto& item : pre) {
      const auto type = item.value("type", std::string());
      if (type == "ByteLevel") {
        state->byte_level = true;
        state->add_prefix_space = item.value("add_prefix_space", false);
        if (item.value("use_regex", true)) state->splits.push_back(std::make_unique<regex>(gpt2_pattern, path));
      } else if (type == "Split") {
        if (item.value("behavior", std::string()) != "Isolated" || item.value("invert", false)) {
          throw unsupported("a Split pre-tokenizer other than Isolated");
        }
        const auto& pattern = item.at("pattern");
        if (!pattern.contains("Regex")) throw unsupported("a Split on a plain string");
        state->splits.push_back(std::make_unique<regex>(pattern.at("Regex").get<std::string>(), path));
      } else {
        throw unsupported(fmt::format("pre-tokenizer '{}'", type));
      }
    }
    if (!state->byte_level) throw unsupported("a tokenizer without a ByteLevel pre-tokenizer");
    return std::unique_ptr<bpe_tokenizer>(new bpe_tokenizer(std::move(state)));
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{}: malformed tokenizer: {}", path, json_error_text(e)));
  }
}

std::vector<std::int64_t> bpe_tokenizer::encode(std::string_view text) const {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (start < text.size()) {
    // The earliest added token (longest at a tie) splits the text.
    std::size_t best_at = std::string_view::npos;
    const std::pair<std::string, std::int64_t>* best = nullptr;
    for (const auto& a : impl_->added) {
      const auto at = text.find(a.first, start);
      if (at != std::string_view::npos && (best == nullptr || at < best_at)) {
        best_at = at;
        best = &a;
      }
    }
    const auto end = best == nullptr ? text.size() : best_at;
    if (end > start) impl_->encode_plain(text.substr(start, end - start), out);
    if (best == nullptr) break;
    out.push_back(best->second);
    start = best_at + best->first.size();
  }
  return out;
}

}  // namespace ironbench::serve
