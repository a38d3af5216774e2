// A Jinja template compiled once and rendered with variables, as transformers renders a
// tokenizer's chat template: trim_blocks and lstrip_blocks on, Undefined printing nothing,
// the globals raise_exception(), strftime_now(), range(), namespace() and dict(), and
// transformers' tojson. Supported are the statements of serve/chat/jinja_parser.hpp, the
// filters of jinja_filters.hpp, the tests of jinja_tests.hpp and the methods of
// jinja_members.hpp; anything else stops rendering with an error naming it, never a guess.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "serve/chat/jinja_ast.hpp"
#include "serve/chat/jinja_value.hpp"
#include "serve/chat/jinja_work.hpp"

namespace ironbench::serve::chat {

class jinja_template {
 public:
  /// Parses `source`; jinja_error ("line N: ...") when it cannot.
  explicit jinja_template(std::string_view source);

  /// The text the template renders with `variables` (its top-level names), in at most
  /// `max_steps` steps of work (jinja_work.hpp). jinja_error when rendering fails
  /// (raise_exception, a type error, an unsupported filter, a bound passed ...).
  [[nodiscard]] std::string render(const jinja_dict& variables, std::int64_t max_steps = jinja_max_steps) const;

 private:
  std::shared_ptr<const jinja_body> body_;
};

}  // namespace ironbench::serve::chat
