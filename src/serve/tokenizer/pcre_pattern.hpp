// The tokenizer's regular expressions: PCRE2 patterns in UTF mode with Unicode properties (the
// patterns of tokenizer.json files are Oniguruma's, which PCRE2 reads alike), and extended
// grapheme clusters (\X).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "serve/tokenizer/utf8_text.hpp"

struct pcre2_real_code_8;

namespace ironbench::serve::tokenization {

/// A compiled PCRE2 pattern (UTF, Unicode properties).
class regex {
 public:
  /// Compiles `pattern`; one that does not compile is a usage_error naming `source`.
  regex(const std::string& pattern, const std::string& source);
  regex(const regex&) = delete;
  regex& operator=(const regex&) = delete;
  ~regex();

  /// Every non-empty match in `text`, left to right ({begin, end} byte offsets). Text that is
  /// not UTF-8 stops the search where it becomes invalid; `valid_utf8`: the caller checked it
  /// (PCRE2 need not check it again at each match).
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> matches(std::string_view text,
                                                                         bool valid_utf8 = false) const;

 private:
  pcre2_real_code_8* code_ = nullptr;
};

/// Extended grapheme clusters (PCRE2's \X), which the Precompiled normalizer works on. Bytes
/// that are not UTF-8 are clusters of one byte.
class grapheme_splitter {
 public:
  grapheme_splitter() : cluster_(R"(\X)", "the grapheme pattern") {}

  /// Calls f(cluster) for each cluster of `text`, in order.
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

}  // namespace ironbench::serve::tokenization
