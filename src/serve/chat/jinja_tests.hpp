// Jinja2's tests (`value is NAME(args)`): defined, none, string, mapping, sequence, equalto,
// divisibleby ... in one table, with Jinja2's results for Python's types.
#pragma once

#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {

/// `value is name(args)`. jinja_error for a test that does not exist.
[[nodiscard]] bool apply_jinja_test(const std::string& name, const jinja_value& value, const jinja_args& args);

}  // namespace ironbench::serve::chat
