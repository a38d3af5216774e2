// A regular expression over a program's output (PCRE2, Perl syntax, named groups
// "(?<name>...)" or "(?P<name>...)"): readiness log lines, failure patterns and metrics.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::experiment {

class log_pattern {
 public:
  /// Compiles `pattern`; usage_error "WHAT: bad regex 'PATTERN': MESSAGE at offset N".
  log_pattern(const std::string& pattern, const std::string& what);

  /// Every match in `text`, in order: each its named groups by name, and "" for the whole match.
  [[nodiscard]] std::vector<std::map<std::string, std::string>> matches(std::string_view text) const;
  /// Whether `text` matches anywhere.
  [[nodiscard]] bool found_in(std::string_view text) const;
  /// The first line of `text` that matches ("" when none).
  [[nodiscard]] std::string first_matching_line(std::string_view text) const;
  /// The named groups, in the order the pattern has them.
  [[nodiscard]] const std::vector<std::string>& group_names() const { return names_; }

 private:
  std::shared_ptr<void> code_;  // pcre2_code_8, freed with pcre2_code_free_8
  std::vector<std::string> names_;
  std::vector<int> numbers_;  // the group number of each name
};

}  // namespace ironbench::experiment
