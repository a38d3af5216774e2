#include "core/text_match.hpp"

namespace ironbench {

bool has_shape(std::string_view text, std::string_view shape) {
  if (text.size() != shape.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (shape[i] == '9' ? !is_digit(text[i]) : text[i] != shape[i]) return false;
  }
  return true;
}

bool text_scanner::literal(std::string_view word) {
  if (!remaining().starts_with(word)) return false;
  at_ += word.size();
  return true;
}

bool text_scanner::spaces() {
  const auto start = at_;
  skip_spaces();
  return at_ > start;
}

void text_scanner::skip_spaces() {
  while (at_ < text_.size() && is_space(text_[at_])) ++at_;
}

std::string_view text_scanner::digits() {
  const auto start = at_;
  while (at_ < text_.size() && is_digit(text_[at_])) ++at_;
  return text_.substr(start, at_ - start);
}

std::string_view text_scanner::word() {
  const auto start = at_;
  while (at_ < text_.size() && !is_space(text_[at_])) ++at_;
  return text_.substr(start, at_ - start);
}

std::optional<std::string_view> text_scanner::until(char stop) {
  const auto end = text_.find(stop, at_);
  if (end == std::string_view::npos) return std::nullopt;
  const auto found = text_.substr(at_, end - at_);
  at_ = end;
  return found;
}

std::string_view text_scanner::rest() {
  const auto left = remaining();
  at_ = text_.size();
  return left;
}

}  // namespace ironbench
