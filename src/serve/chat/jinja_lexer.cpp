#include "serve/chat/jinja_lexer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {
namespace {

bool python_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

int count_lines(std::string_view text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

void append_utf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

class lexer {
 public:
  explicit lexer(std::string_view source) : src_(source) {}

  std::vector<jinja_token> run() {
    while (pos_ < src_.size()) {
      const auto tag = find_tag(pos_);
      std::string text(src_.substr(pos_, tag - pos_));
      if (tag == src_.size()) {
        emit_text(std::move(text));
        pos_ = tag;
        break;
      }
      const char opener = src_[tag + 1];
      const char marker = tag + 2 < src_.size() ? src_[tag + 2] : '\0';
      const bool line_starting = pos_ == 0 || src_[pos_ - 1] == '\n';
      if (marker == '-') {
        while (!text.empty() && python_space(text.back())) text.pop_back();
      } else if (opener != '{' && marker != '+') {
        lstrip(text, line_starting);
      }
      emit_text(std::move(text));
      line_ += count_lines(src_.substr(pos_, tag - pos_));
      pos_ = tag + 2 + (marker == '-' || marker == '+' ? 1 : 0);
      if (opener == '#') {
        comment();
      } else if (opener == '%' && raw_block()) {
        continue;
      } else {
        tag_tokens(opener == '{');
      }
    }
    tokens_.push_back({jinja_token::kind::end, "", line_});
    return std::move(tokens_);
  }

 private:
  std::size_t find_tag(std::size_t from) const {
    for (std::size_t i = from; i + 1 < src_.size(); ++i) {
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    }
    return src_.size();
  }

  // lstrip_blocks: spaces and tabs between the line's start and a block or comment tag go.
  static void lstrip(std::string& text, bool line_starting) {
    const auto newline = text.rfind('\n');
    const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    if (start == 0 && !line_starting) return;
    if (start == text.size()) return;
    for (std::size_t i = start; i < text.size(); ++i) {
      if (!python_space(text[i])) return;
    }
    text.resize(start);
  }

  void emit_text(std::string text) {
    if (!text.empty()) tokens_.push_back({jinja_token::kind::text, std::move(text), line_});
  }

  // After a tag: "-" strips all following whitespace; a block's or comment's own newline goes
  // (trim_blocks).
  void after_tag(bool strip, bool trim_newline) {
    if (strip) {
      while (pos_ < src_.size() && python_space(src_[pos_])) {
        if (src_[pos_] == '\n') ++line_;
        ++pos_;
      }
    } else if (trim_newline && pos_ < src_.size() && src_[pos_] == '\n') {
      ++line_;
      ++pos_;
    }
  }

  void comment() {
    const auto end = src_.find("#}", pos_);
    if (end == std::string_view::npos) fail("a comment {# is never closed");
    const bool strip = end > pos_ && src_[end - 1] == '-';
    line_ += count_lines(src_.substr(pos_, end - pos_));
    pos_ = end + 2;
    after_tag(strip, true);
  }

  // {% raw %} ... {% endraw %}: the text between is printed as it is.
  bool raw_block() {
    std::size_t i = pos_;
    while (i < src_.size() && python_space(src_[i])) ++i;
    if (src_.substr(i, 3) != "raw") return false;
    i += 3;
    while (i < src_.size() && python_space(src_[i])) ++i;
    bool strip = false;
    if (i < src_.size() && src_[i] == '-') {
      strip = true;
      ++i;
    }
    if (src_.substr(i, 2) != "%}") return false;
    pos_ = i + 2;
    after_tag(strip, true);
    for (std::size_t search = pos_;;) {
      const auto tag = src_.find("{%", search);
      if (tag == std::string_view::npos) fail("{% raw %} is never closed by {% endraw %}");
      std::size_t j = tag + 2;
      const bool strip_before = j < src_.size() && src_[j] == '-';
      if (j < src_.size() && (src_[j] == '-' || src_[j] == '+')) ++j;
      while (j < src_.size() && python_space(src_[j])) ++j;
      if (src_.substr(j, 6) != "endraw") {
        search = tag + 2;
        continue;
      }
      j += 6;
      while (j < src_.size() && python_space(src_[j])) ++j;
      const bool strip_after = j < src_.size() && src_[j] == '-';
      if (strip_after) ++j;
      if (src_.substr(j, 2) != "%}") fail("malformed {% endraw %}");
      std::string text(src_.substr(pos_, tag - pos_));
      if (strip_before) {
        while (!text.empty() && python_space(text.back())) text.pop_back();
      }
      line_ += count_lines(src_.substr(pos_, j - pos_));
      emit_text(std::move(text));
      pos_ = j + 2;
      after_tag(strip_after, true);
      return true;
    }
  }

  void tag_tokens(bool print) {
    tokens_.push_back({print ? jinja_token::kind::print_begin : jinja_token::kind::block_begin, "", line_});
    int depth = 0;  // open brackets: a "}}" inside a dict literal does not end a {{ }}
    while (true) {
      while (pos_ < src_.size() && python_space(src_[pos_])) {
        if (src_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ >= src_.size()) fail(print ? "a {{ is never closed" : "a {% is never closed");
      const bool dash = src_[pos_] == '-' || src_[pos_] == '+';
      const std::size_t close_at = pos_ + (dash ? 1 : 0);
      const std::string_view closer = print ? "}}" : "%}";
      if (depth == 0 && src_.substr(close_at, 2) == closer) {
        const bool strip = dash && src_[pos_] == '-';
        tokens_.push_back({print ? jinja_token::kind::print_end : jinja_token::kind::block_end, "", line_});
        pos_ = close_at + 2;
        after_tag(strip, !print);
        return;
      }
      const char c = src_[pos_];
      if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
        std::size_t end = pos_;
        while (end < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[end])) != 0 || src_[end] == '_')) {
          ++end;
        }
        tokens_.push_back({jinja_token::kind::name, std::string(src_.substr(pos_, end - pos_)), line_});
        pos_ = end;
      } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
        number();
      } else if (c == '\'' || c == '"') {
        string_literal(c);
      } else {
        depth = std::max(0, depth + op(print));
      }
    }
  }

  void number() {
    std::size_t end = pos_;
    bool floating = false;
    const auto digits = [&] {
      while (end < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[end])) != 0 || src_[end] == '_')) {
        ++end;
      }
    };
    digits();
    if (end + 1 < src_.size() && src_[end] == '.' && std::isdigit(static_cast<unsigned char>(src_[end + 1])) != 0) {
      floating = true;
      ++end;
      digits();
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      if (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e])) != 0) {
        floating = true;
        end = e;
        digits();
      }
    }
    std::string text(src_.substr(pos_, end - pos_));
    std::erase(text, '_');
    tokens_.push_back({floating ? jinja_token::kind::floating : jinja_token::kind::integer, text, line_});
    pos_ = end;
  }

  void string_literal(char quote) {
    std::string value;
    std::size_t i = pos_ + 1;
    const int start_line = line_;
    while (true) {
      if (i >= src_.size()) fail("a string literal is never closed");
      const char c = src_[i];
      if (c == quote) break;
      if (c == '\n') ++line_;
      if (c != '\\' || i + 1 >= src_.size()) {
        value += c;
        ++i;
        continue;
      }
      const char e = src_[i + 1];
      i += 2;
      switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '0': value += '\0'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'v': value += '\v'; break;
        case 'a': value += '\a'; break;
        case '\\':
        case '\'':
        case '"': value += e; break;
        case '\n': ++line_; break;  // a line continuation
        case 'x':
        case 'u':
        case 'U': {
          const std::size_t length = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (i + length > src_.size()) fail("a malformed \\" + std::string(1, e) + " escape");
          const std::string hex(src_.substr(i, length));
          if (!std::all_of(hex.begin(), hex.end(),
                           [](char h) { return std::isxdigit(static_cast<unsigned char>(h)); })) {
            fail("a malformed \\" + std::string(1, e) + " escape");
          }
          append_utf8(value, std::stoul(hex, nullptr, 16));
          i += length;
          break;
        }
        default:  // Python keeps an unknown escape as it is
          value += '\\';
          value += e;
      }
    }
    tokens_.push_back({jinja_token::kind::string, std::move(value), start_line});
    pos_ = i + 1;
  }

  // Returns how the bracket depth changes.
  int op(bool print) {
    static constexpr std::array<std::string_view, 6> two{"//", "**", "==", "!=", "<=", ">="};
    for (const auto o : two) {
      if (src_.substr(pos_, 2) == o) {
        tokens_.push_back({jinja_token::kind::op, std::string(o), line_});
        pos_ += 2;
        return 0;
      }
    }
    const char c = src_[pos_];
    if (std::string_view("+-*/%~<>=()[]{},.:|").find(c) == std::string_view::npos) {
      fail(std::string("an unexpected character '") + c + "' in a " + (print ? "{{ }}" : "{% %}") + " tag");
    }
    tokens_.push_back({jinja_token::kind::op, std::string(1, c), line_});
    ++pos_;
    if (c == '(' || c == '[' || c == '{') return 1;
    if (c == ')' || c == ']' || c == '}') return -1;
    return 0;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw jinja_error("line " + std::to_string(line_) + ": " + what);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::vector<jinja_token> tokens_;
};

}  // namespace

std::vector<jinja_token> lex_jinja(std::string_view source) {
  // Jinja2 drops one newline at the end of the template (keep_trailing_newline=False).
  if (source.ends_with("\r\n")) {
    source.remove_suffix(2);
  } else if (source.ends_with('\n')) {
    source.remove_suffix(1);
  }
  return lexer(source).run();
}

}  // namespace ironbench::serve::chat
