#include "serve/tokenizer/pcre_pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::serve::tokenization {

regex::regex(const std::string& pattern, const std::string& source) {
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

regex::~regex() { pcre2_code_free(code_); }

std::vector<std::pair<std::size_t, std::size_t>> regex::matches(std::string_view text, bool valid_utf8) const {
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

}  // namespace ironbench::serve::tokenization
