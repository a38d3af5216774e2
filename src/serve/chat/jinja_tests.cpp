#include "serve/chat/jinja_tests.hpp"

#include <algorithm>
#include <map>

#include "serve/chat/jinja_work.hpp"
#include "serve/chat/python_text.hpp"

namespace ironbench::serve::chat {
namespace {

using test_fn = bool (*)(const jinja_value& value, const jinja_args& args);

const jinja_value& argument(const jinja_args& args, const char* test) {
  const auto* v = args.get(0, "other");
  if (v == nullptr) throw jinja_error(std::string("the test '") + test + "' needs an argument");
  return *v;
}

bool equal_to(const jinja_value& v, const jinja_args& a) { return jinja_equal(v, argument(a, "equalto")); }
bool less_than(const jinja_value& v, const jinja_args& a) { return jinja_less(v, argument(a, "lt")); }
bool greater_than(const jinja_value& v, const jinja_args& a) { return jinja_less(argument(a, "gt"), v); }

bool contained_in(const jinja_value& v, const jinja_args& a) {
  const auto& container = argument(a, "in");
  if (container.is_string()) {
    if (!v.is_string()) throw jinja_error("'in <string>' requires a string as left operand, not " + v.type_name());
    return container.as_string().find(v.as_string()) != std::string::npos;
  }
  const auto items = container.iterate();
  jinja_charge(jinja_steps_for_comparisons(items.size()));
  return std::any_of(items.begin(), items.end(), [&](const jinja_value& item) { return jinja_equal(item, v); });
}

std::int64_t integer_of(const jinja_value& v, const char* test) {
  if (v.is_int()) return v.as_int();
  if (v.is_bool()) return v.as_bool() ? 1 : 0;
  throw jinja_error(std::string("the test '") + test + "' needs an integer, not " + v.type_name());
}

const std::map<std::string, test_fn>& tests() {
  static const std::map<std::string, test_fn> table{
      {"defined", [](const jinja_value& v, const jinja_args&) { return !v.is_undefined(); }},
      {"undefined", [](const jinja_value& v, const jinja_args&) { return v.is_undefined(); }},
      {"none", [](const jinja_value& v, const jinja_args&) { return v.is_none(); }},
      {"string", [](const jinja_value& v, const jinja_args&) { return v.is_string(); }},
      {"mapping", [](const jinja_value& v, const jinja_args&) { return v.is_dict(); }},
      {"boolean", [](const jinja_value& v, const jinja_args&) { return v.is_bool(); }},
      {"true", [](const jinja_value& v, const jinja_args&) { return v.is_bool() && v.as_bool(); }},
      {"false", [](const jinja_value& v, const jinja_args&) { return v.is_bool() && !v.as_bool(); }},
      {"number", [](const jinja_value& v, const jinja_args&) { return v.is_number() || v.is_bool(); }},
      {"integer", [](const jinja_value& v, const jinja_args&) { return v.is_int(); }},
      {"float", [](const jinja_value& v, const jinja_args&) { return v.is_float(); }},
      {"callable", [](const jinja_value& v, const jinja_args&) { return v.is_callable(); }},
      {"sequence", [](const jinja_value& v, const jinja_args&) { return v.is_string() || v.is_list() || v.is_dict(); }},
      {"iterable", [](const jinja_value& v,
                      const jinja_args&) { return v.is_string() || v.is_list() || v.is_dict() || v.is_undefined(); }},
      {"odd", [](const jinja_value& v, const jinja_args&) { return integer_of(v, "odd") % 2 != 0; }},
      {"even", [](const jinja_value& v, const jinja_args&) { return integer_of(v, "even") % 2 == 0; }},
      {"divisibleby",
       [](const jinja_value& v, const jinja_args& a) {
         const auto by = integer_of(argument(a, "divisibleby"), "divisibleby");
         if (by == 0) throw jinja_error("integer division or modulo by zero");
         return integer_of(v, "divisibleby") % by == 0;
       }},
      {"lower", [](const jinja_value& v,
                   const jinja_args&) { return v.is_string() && python_lower(v.as_string()) == v.as_string(); }},
      {"upper", [](const jinja_value& v,
                   const jinja_args&) { return v.is_string() && python_upper(v.as_string()) == v.as_string(); }},
      {"equalto", equal_to},
      {"eq", equal_to},
      {"==", equal_to},
      {"ne", [](const jinja_value& v, const jinja_args& a) { return !equal_to(v, a); }},
      {"!=", [](const jinja_value& v, const jinja_args& a) { return !equal_to(v, a); }},
      {"sameas",
       [](const jinja_value& v, const jinja_args& a) {
         const auto& other = argument(a, "sameas");
         if (v.is_none() || v.is_bool() || other.is_none() || other.is_bool())
           return jinja_equal(v, other) && v.type_name() == other.type_name();
         return false;
       }},
      {"lt", less_than},
      {"lessthan", less_than},
      {"<", less_than},
      {"gt", greater_than},
      {"greaterthan", greater_than},
      {">", greater_than},
      {"le", [](const jinja_value& v, const jinja_args& a) { return !greater_than(v, a); }},
      {"<=", [](const jinja_value& v, const jinja_args& a) { return !greater_than(v, a); }},
      {"ge", [](const jinja_value& v, const jinja_args& a) { return !less_than(v, a); }},
      {">=", [](const jinja_value& v, const jinja_args& a) { return !less_than(v, a); }},
      {"in", contained_in},
  };
  return table;
}

}  // namespace

bool apply_jinja_test(const std::string& name, const jinja_value& value, const jinja_args& args) {
  const auto found = tests().find(name);
  if (found == tests().end()) throw jinja_error("no test named '" + name + "'");
  jinja_charge_application(value, args);
  return found->second(value, args);
}

}  // namespace ironbench::serve::chat
