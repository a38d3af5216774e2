// Small string utilities shared by parsers and option handling: trimming and splitting lists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench {

/// `text` without leading and trailing white space (space, tab, CR, LF, VT, FF).
[[nodiscard]] std::string_view trim(std::string_view text);

/// trim() as an owning string.
[[nodiscard]] std::string trim_copy(std::string_view text);

/// The items of a `separator`-separated list, empty items kept: "a,,b" gives {"a", "", "b"},
/// "" gives {""}. Callers that reject empty items see them.
[[nodiscard]] std::vector<std::string> split(std::string_view text, char separator = ',');

/// As split(), without the empty items: "a,,b," gives {"a", "b"}, "" gives {}.
[[nodiscard]] std::vector<std::string> split_non_empty(std::string_view text, char separator = ',');

/// The lines of `text` (a trailing carriage return is removed from each).
[[nodiscard]] std::vector<std::string> split_lines(const std::string& text);

/// The fields of `line` separated by runs of spaces and tabs.
[[nodiscard]] std::vector<std::string> split_whitespace(std::string_view line);

/// The fields of `line` separated by `separator`, each trimmed.
[[nodiscard]] std::vector<std::string> split_fields(std::string_view line, char separator);

/// `text` with its ASCII letters in lower case (other bytes, UTF-8 included, unchanged).
[[nodiscard]] std::string ascii_lower(std::string_view text);

/// `text` with every %XX (two hexadecimal digits) decoded to its byte; a '%' not followed by
/// two hexadecimal digits is kept as it is (URLs, libpq's connection URLs).
[[nodiscard]] std::string percent_decoded(std::string_view text);

/// Whether `key` may name a tag (`--tag KEY=VALUE`, a recipe's `tags`): letters, digits, '_',
/// '-' and '.', at least one (no '/', no space: `../../x` is none).
[[nodiscard]] bool is_tag_key(std::string_view key);

/// Whether `name` is an HTTP header (field) name: an RFC 9110 token, letters, digits and
/// !#$%&'*+-.^_`|~, at least one (no white space, ':', '=', quote or '@').
[[nodiscard]] bool is_http_field_name(std::string_view name);

/// `items` joined with `separator` between them.
[[nodiscard]] std::string join(const std::vector<std::string>& items, std::string_view separator = ",");

}  // namespace ironbench
