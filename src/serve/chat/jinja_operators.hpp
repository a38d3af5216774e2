// Jinja's binary operators on template values with Python's semantics: + - * / // % ** on
// numbers (integers stay integers, / gives a float, // and % floor), + and * on strings and
// lists, ~ (concatenation as text), == != < <= > >=, in and not in.
#pragma once

#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {

/// `a op b`. jinja_error for operands Python would reject (a TypeError, a division by zero,
/// an Undefined operand of arithmetic) or an integer result that overflows 64 bits.
[[nodiscard]] jinja_value apply_jinja_operator(const std::string& op, const jinja_value& a, const jinja_value& b);

}  // namespace ironbench::serve::chat
