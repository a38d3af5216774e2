#include "experiment/log_pattern.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::experiment {

log_pattern::log_pattern(const std::string& pattern, const std::string& what) {
  int error_code = 0;
  PCRE2_SIZE offset = 0;
  auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_MULTILINE,
                             &error_code, &offset, nullptr);
  if (code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof message);
    throw usage_error(fmt::format("{}: bad regex '{}': {} at offset {}", what, pattern,
                                  reinterpret_cast<const char*>(message), offset));
  }
  code_ = std::shared_ptr<void>(code, [](void* c) { pcre2_code_free(static_cast<pcre2_code*>(c)); });
  std::uint32_t count = 0, entry_size = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
  std::vector<std::pair<int, std::string>> groups;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto* entry = table + i * entry_size;
    groups.emplace_back((entry[0] << 8) | entry[1], reinterpret_cast<const char*>(entry + 2));
  }
  std::sort(groups.begin(), groups.end());
  for (auto& [number, name] : groups) {
    numbers_.push_back(number);
    names_.push_back(std::move(name));
  }
}

std::vector<std::map<std::string, std::string>> log_pattern::matches(std::string_view text) const {
  auto* code = static_cast<pcre2_code*>(code_.get());
  const std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), pcre2_match_data_free);
  std::vector<std::map<std::string, std::string>> found;
  PCRE2_SIZE start = 0;
  while (start <= text.size()) {
    const int rc =
        pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start, 0, data.get(), nullptr);
    if (rc < 0) break;
    const auto* ovector = pcre2_get_ovector_pointer(data.get());
    std::map<std::string, std::string> groups;
    groups[""] = std::string(text.substr(ovector[0], ovector[1] - ovector[0]));
    for (std::size_t i = 0; i < names_.size(); ++i) {
      const auto n = static_cast<std::size_t>(numbers_[i]);
      if (static_cast<int>(n) < rc && ovector[2 * n] != PCRE2_UNSET) {
        groups[names_[i]] = std::string(text.substr(ovector[2 * n], ovector[2 * n + 1] - ovector[2 * n]));
      }
    }
    found.push_back(std::move(groups));
    start = ovector[1] > ovector[0] ? ovector[1] : ovector[1] + 1;
  }
  return found;
}

bool log_pattern::found_in(std::string_view text) const {
  auto* code = static_cast<pcre2_code*>(code_.get());
  const std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> data(
      pcre2_match_data_create_from_pattern(code, nullptr), pcre2_match_data_free);
  return pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, data.get(), nullptr) >= 0;
}

std::string log_pattern::first_matching_line(std::string_view text) const {
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto line = text.substr(start, end - start);
    if (found_in(line)) return std::string(line);
    start = end + 1;
  }
  return "";
}

}  // namespace ironbench::experiment
