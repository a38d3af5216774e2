// Parses Jinja template text into statements (serve/chat/jinja_ast.hpp): the part of Jinja2
// that chat templates use: if/elif/else, for (with loop filters, else, break, continue), set
// (names, unpacking, namespace attributes, blocks), macro and call, filter blocks, raw,
// comments, generation blocks, and Jinja's expressions with its operator precedence.
// Anything else (extends, include, import, block, with ...) is refused naming the line.
#pragma once

#include <string_view>

#include "serve/chat/jinja_ast.hpp"

namespace ironbench::serve::chat {

/// The statements of `source`. Throws jinja_error ("line N: ...") on a syntax error or a
/// statement this renderer does not support.
[[nodiscard]] jinja_body parse_jinja(std::string_view source);

}  // namespace ironbench::serve::chat
