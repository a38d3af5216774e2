// Matching the fixed text formats ironbench reads (other tools' output, option values) without
// regular expressions: a cursor that consumes what it matches, and digit shapes. Every call is
// linear in the text and recurses nowhere, so a line of any length is matched without risk to
// the stack (libstdc++'s regex matcher recurses per character and overflowed it on long lines).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ironbench {

/// Whether `c` is white space as the C locale has it (space, tab, CR, LF, VT, FF).
[[nodiscard]] constexpr bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/// Whether `c` is an ASCII digit.
[[nodiscard]] constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Whether `c` is an ASCII letter.
[[nodiscard]] constexpr bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// Whether `text` has `shape`, character by character: '9' in the shape stands for any ASCII
/// digit, every other character for itself. has_shape("2026-05-01", "9999-99-99") is true.
[[nodiscard]] bool has_shape(std::string_view text, std::string_view shape);

/// A cursor over a text. Each call consumes what it matches and says whether it matched;
/// a call that does not match consumes nothing. position()/rewind() undo a partial match.
class text_scanner {
 public:
  explicit text_scanner(std::string_view text) : text_(text) {}
  explicit text_scanner(const char* text) : text_(text) {}
  /// Not over a temporary string, which would be gone before the first call.
  explicit text_scanner(std::string&&) = delete;

  /// Consumes `word` when the text continues with it.
  bool literal(std::string_view word);
  /// Consumes one or more white-space characters; false when none follows.
  bool spaces();
  /// Consumes the white space that follows, if any.
  void skip_spaces();
  /// Consumes and returns the ASCII digits that follow ("" when none).
  std::string_view digits();
  /// Consumes and returns the characters before the next white space or the end ("" when
  /// white space or the end follows).
  std::string_view word();
  /// Consumes and returns the characters before the next `stop` (which stays); nullopt when
  /// no `stop` follows.
  std::optional<std::string_view> until(char stop);
  /// Consumes and returns everything left.
  std::string_view rest();

  /// Whether everything has been consumed.
  [[nodiscard]] bool at_end() const { return at_ == text_.size(); }
  /// How much has been consumed; give it to rewind() to go back there.
  [[nodiscard]] std::size_t position() const { return at_; }
  void rewind(std::size_t position) { at_ = position; }
  /// What is left, without consuming it.
  [[nodiscard]] std::string_view remaining() const { return text_.substr(at_); }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

}  // namespace ironbench
