// Splits a Jinja template into text and the tokens of its tags, with the whitespace rules
// transformers renders chat templates with: trim_blocks (the newline after a block or comment
// tag goes), lstrip_blocks (spaces and tabs before a block or comment tag at the start of a
// line go), and the "-" and "+" markers of each tag.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve::chat {

struct jinja_token {
  enum class kind {
    text,         ///< template text, printed as it is
    print_begin,  ///< {{
    print_end,    ///< }}
    block_begin,  ///< {%
    block_end,    ///< %}
    name,         ///< an identifier or keyword
    string,       ///< a string literal, escapes already applied
    integer,
    floating,
    op,  ///< an operator or punctuation: + - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : |
    end  ///< the end of the template
  };
  kind type = kind::end;
  std::string text;  ///< the text, name, string value, number or operator
  int line = 1;
};

/// The tokens of `source`. Throws jinja_error naming the line of an unclosed tag or string.
[[nodiscard]] std::vector<jinja_token> lex_jinja(std::string_view source);

}  // namespace ironbench::serve::chat
