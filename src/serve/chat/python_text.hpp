// Python's str methods that chat templates call (strip, split, title, replace ...), on UTF-8
// text, with Python's results: what Jinja2 gives a template in transformers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve::chat {

/// Whether the character (UTF-8 bytes) is whitespace for Python's str.isspace().
[[nodiscard]] bool python_whitespace(std::string_view ch);

enum class strip_side { both, left, right };
/// str.strip(chars) / lstrip / rstrip: whitespace when `chars` is empty, else those characters.
[[nodiscard]] std::string python_strip(const std::string& text, strip_side side,
                                       const std::optional<std::string>& chars = std::nullopt);
/// str.split(sep, maxsplit): on runs of whitespace when `sep` is absent (ends dropped). A `sep`
/// of "" is refused with std::invalid_argument, as Python refuses it ("empty separator").
[[nodiscard]] std::vector<std::string> python_split(const std::string& text, const std::optional<std::string>& sep,
                                                    std::int64_t maxsplit = -1);
/// str.replace(old, new, count): every occurrence when count < 0. A jinja_error when the result
/// would pass jinja_max_built_size.
[[nodiscard]] std::string python_replace(const std::string& text, const std::string& old, const std::string& with,
                                         std::int64_t count = -1);
[[nodiscard]] std::string python_upper(const std::string& text);
[[nodiscard]] std::string python_lower(const std::string& text);
/// str.title(): each word's first letter upper case, the rest lower case.
[[nodiscard]] std::string python_title(const std::string& text);
/// str.capitalize(): the first character upper case, the rest lower case.
[[nodiscard]] std::string python_capitalize(const std::string& text);
/// str.splitlines() without the line ends.
[[nodiscard]] std::vector<std::string> python_splitlines(const std::string& text);
/// How many characters (code points).
[[nodiscard]] std::size_t python_length(const std::string& text);

}  // namespace ironbench::serve::chat
