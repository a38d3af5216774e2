#include "serve/chat/jinja_operators.hpp"

#include <cmath>

#include "serve/chat/jinja_tests.hpp"
#include "serve/chat/jinja_work.hpp"

namespace ironbench::serve::chat {
namespace {

bool numeric(const jinja_value& v) { return v.is_number() || v.is_bool(); }
bool integral(const jinja_value& v) { return v.is_int() || v.is_bool(); }
std::int64_t integer(const jinja_value& v) { return v.is_int() ? v.as_int() : static_cast<std::int64_t>(v.as_bool()); }

[[noreturn]] void unsupported(const std::string& op, const jinja_value& a, const jinja_value& b) {
  if (a.is_undefined()) throw jinja_error("'" + a.undefined_name() + "' is undefined (an operand of " + op + ")");
  if (b.is_undefined()) throw jinja_error("'" + b.undefined_name() + "' is undefined (an operand of " + op + ")");
  throw jinja_error("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" + b.type_name() + "'");
}

void check_overflow(bool overflowed, const std::string& op) {
  if (overflowed) throw jinja_error("the integer result of " + op + " does not fit in 64 bits");
}

jinja_value repeat(const jinja_value& sequence, std::int64_t times) {
  if (times <= 0) return sequence.is_string() ? jinja_value("") : jinja_value(jinja_list{});
  if (times > 1000000) throw jinja_error("a sequence repeated more than a million times");
  const auto size = sequence.is_string() ? sequence.as_string().size() : sequence.as_list().size();
  if (size > jinja_max_built_size / static_cast<std::size_t>(times)) {
    throw jinja_error("a sequence of " + std::to_string(size) + " repeated " + std::to_string(times) +
                      " times passes " + std::to_string(jinja_max_built_size) + " characters or items");
  }
  if (sequence.is_string()) {
    std::string out;
    for (std::int64_t i = 0; i < times; ++i) out += sequence.as_string();
    return out;
  }
  jinja_list out;
  for (std::int64_t i = 0; i < times; ++i) out.insert(out.end(), sequence.as_list().begin(), sequence.as_list().end());
  return out;
}

jinja_value arithmetic(const std::string& op, const jinja_value& a, const jinja_value& b) {
  if (integral(a) && integral(b)) {
    const std::int64_t x = integer(a);
    const std::int64_t y = integer(b);
    std::int64_t r = 0;
    if (op == "+" || op == "-" || op == "*") {
      check_overflow(op == "+"   ? __builtin_add_overflow(x, y, &r)
                     : op == "-" ? __builtin_sub_overflow(x, y, &r)
                                 : __builtin_mul_overflow(x, y, &r),
                     op);
      return r;
    }
    if (op == "/") {
      if (y == 0) throw jinja_error("division by zero");
      return static_cast<double>(x) / static_cast<double>(y);
    }
    if (op == "//" || op == "%") {
      if (y == 0) throw jinja_error("integer division or modulo by zero");
      if (x == INT64_MIN && y == -1) throw jinja_error("the integer result of " + op + " does not fit in 64 bits");
      std::int64_t q = x / y;
      std::int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) {  // Python floors
        --q;
        m += y;
      }
      return op == "//" ? q : m;
    }
    if (op == "**") {
      if (y < 0) return std::pow(static_cast<double>(x), static_cast<double>(y));
      std::int64_t result = 1;
      std::int64_t base = x;
      for (std::int64_t e = y; e > 0;) {  // by squaring
        if ((e & 1) != 0) check_overflow(__builtin_mul_overflow(result, base, &result), op);
        e >>= 1;
        if (e > 0) check_overflow(__builtin_mul_overflow(base, base, &base), op);
      }
      return result;
    }
  }
  const double x = a.as_double();
  const double y = b.as_double();
  if (op == "+") return x + y;
  if (op == "-") return x - y;
  if (op == "*") return x * y;
  if (op == "**") return std::pow(x, y);
  if (y == 0) throw jinja_error("float division by zero");
  if (op == "/") return x / y;
  const double q = std::floor(x / y);
  if (op == "//") return q;
  return x - q * y;  // %
}

}  // namespace

jinja_value apply_jinja_operator(const std::string& op, const jinja_value& a, const jinja_value& b) {
  jinja_charge_for(a);
  jinja_charge_for(b);
  const auto concatenated = [](std::string left, const std::string& right) {
    append_bounded(left, right, "a concatenation");
    return left;
  };
  if (op == "~") return concatenated(a.str(), b.str());
  if (op == "==") return jinja_equal(a, b);
  if (op == "!=") return !jinja_equal(a, b);
  if (op == "<" || op == "<=" || op == ">" || op == ">=") {
    if (a.is_undefined() || b.is_undefined()) unsupported(op, a, b);
    if (op == "<") return jinja_less(a, b);
    if (op == ">") return jinja_less(b, a);
    if (op == "<=") return !jinja_less(b, a);
    return !jinja_less(a, b);
  }
  if (op == "in" || op == "not in") {
    jinja_args args;
    args.positional.push_back(b);
    const bool found = apply_jinja_test("in", a, args);
    return op == "in" ? found : !found;
  }
  if (numeric(a) && numeric(b)) return arithmetic(op, a, b);
  if (op == "+" && a.is_string() && b.is_string()) return concatenated(a.as_string(), b.as_string());
  if (op == "+" && a.is_list() && b.is_list()) {
    if (a.as_list().size() + b.as_list().size() > jinja_max_built_size) {
      throw jinja_error("a concatenation passes " + std::to_string(jinja_max_built_size) + " items");
    }
    jinja_list joined = a.as_list();
    joined.insert(joined.end(), b.as_list().begin(), b.as_list().end());
    return joined;
  }
  if (op == "*" && (a.is_string() || a.is_list()) && integral(b)) return repeat(a, integer(b));
  if (op == "*" && (b.is_string() || b.is_list()) && integral(a)) return repeat(b, integer(a));
  unsupported(op, a, b);
}

}  // namespace ironbench::serve::chat
