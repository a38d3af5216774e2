#include "serve/chat/jinja_value.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "serve/chat/jinja_work.hpp"
#include "serve/chat/utf8_chars.hpp"

namespace ironbench::serve::chat {

const jinja_value* jinja_dict::find(const std::string& key) const {
  jinja_charge(jinja_steps_for_items(items.size()));
  for (const auto& [k, v] : items) {
    if (k == key) return &v;
  }
  return nullptr;
}

void jinja_dict::set(const std::string& key, jinja_value value) {
  jinja_charge(jinja_steps_for_items(items.size()));
  for (auto& [k, v] : items) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  items.emplace_back(key, std::move(value));
}

const jinja_value* jinja_args::get(std::size_t position, const std::string& name) const {
  if (position < positional.size()) return &positional[position];
  for (const auto& [k, v] : keyword) {
    if (k == name) return &v;
  }
  return nullptr;
}

jinja_value jinja_value::from_json(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return none();
    case nlohmann::ordered_json::value_t::boolean: return j.get<bool>();
    case nlohmann::ordered_json::value_t::number_integer: return j.get<std::int64_t>();
    case nlohmann::ordered_json::value_t::number_unsigned:
      if (j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) return j.get<double>();
      return static_cast<std::int64_t>(j.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return j.get<double>();
    case nlohmann::ordered_json::value_t::string: return j.get<std::string>();
    case nlohmann::ordered_json::value_t::array: {
      jinja_list list;
      list.reserve(j.size());
      for (const auto& item : j) list.push_back(from_json(item));
      return list;
    }
    case nlohmann::ordered_json::value_t::object: {
      jinja_dict dict;
      for (const auto& [key, item] : j.items()) dict.items.emplace_back(key, from_json(item));
      return dict;
    }
    default: throw jinja_error("a JSON value of a type a template cannot use (binary)");
  }
}

double jinja_value::as_double() const {
  if (is_int()) return static_cast<double>(as_int());
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  return std::get<double>(data_);
}

bool jinja_value::truthy() const {
  if (is_undefined() || is_none()) return false;
  if (is_bool()) return as_bool();
  if (is_int()) return as_int() != 0;
  if (is_float()) return as_double() != 0.0;
  if (is_string()) return !as_string().empty();
  if (is_list()) return !as_list().empty();
  if (is_dict()) return as_dict().is_namespace || !as_dict().items.empty();
  return true;
}

std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string text(buffer, result.ptr);  // [-]d[.ddd]e[+-]XX, the shortest round trip
  const auto e = text.find('e');
  std::string mantissa = text.substr(0, e);
  const int exponent = std::atoi(text.c_str() + e + 1);
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (const char c : mantissa) {
    if (c != '.') digits += c;
  }
  const int point = exponent + 1;  // digits before the decimal point
  std::string out = negative ? "-" : "";
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      out += "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    } else if (static_cast<std::size_t>(point) >= digits.size()) {
      out += digits + std::string(static_cast<std::size_t>(point) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(point)) + "." + digits.substr(static_cast<std::size_t>(point));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  char exp_text[16];
  std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp_text;
}

namespace {

std::string python_string_repr(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos;
  const bool has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for_each_utf8_char(s, [&](std::string_view ch) {
    const auto c = static_cast<unsigned char>(ch[0]);
    if (ch.size() == 1) {
      if (ch[0] == quote || ch[0] == '\\') {
        out += '\\';
        out += ch[0];
      } else if (ch[0] == '\n') {
        out += "\\n";
      } else if (ch[0] == '\r') {
        out += "\\r";
      } else if (ch[0] == '\t') {
        out += "\\t";
      } else if (c < 0x20 || c == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        out += hex;
      } else {
        out += ch;
      }
    } else if (ch.size() == 2 && c == 0xc2 && static_cast<unsigned char>(ch[1]) <= 0xa0) {
      char hex[8];  // U+0080..U+00A0: not printable for Python
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(ch[1]));
      out += hex;
    } else {
      out += ch;
    }
  });
  out += quote;
  return out;
}

// \uXXXX escapes of one character (a surrogate pair above U+FFFF), as ensure_ascii writes.
void ascii_escape(std::string_view ch, std::string& out) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned long>(static_cast<unsigned char>(ch[i])); };
  unsigned long code = 0;
  if (ch.size() == 2) code = ((byte(0) & 0x1f) << 6) | (byte(1) & 0x3f);
  if (ch.size() == 3) code = ((byte(0) & 0x0f) << 12) | ((byte(1) & 0x3f) << 6) | (byte(2) & 0x3f);
  if (ch.size() == 4) {
    code = ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3f) << 12) | ((byte(2) & 0x3f) << 6) | (byte(3) & 0x3f);
  }
  char hex[16];
  if (code >= 0x10000) {
    code -= 0x10000;
    std::snprintf(hex, sizeof hex, "\\u%04lx\\u%04lx", 0xd800 + (code >> 10), 0xdc00 + (code & 0x3ff));
  } else {
    std::snprintf(hex, sizeof hex, "\\u%04lx", code);
  }
  out += hex;
}

void json_string(const std::string& s, std::string& out, bool ensure_ascii) {
  out += '"';
  if (ensure_ascii) {
    std::string escaped;
    for_each_utf8_char(s, [&](std::string_view ch) {
      if (ch.size() == 1) {
        json_string(std::string(ch), escaped, false);
        out += escaped.substr(1, escaped.size() - 2);
        escaped.clear();
      } else {
        ascii_escape(ch, out);
      }
    });
    out += '"';
    return;
  }
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04x", c);
          out += hex;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

struct json_writer {
  int indent;
  const std::string& item_separator;
  const std::string& key_separator;
  bool sort_keys;
  bool ensure_ascii;
  std::string out;

  void newline(int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * level), ' ');
  }

  void write(const jinja_value& v, int level) {
    if (out.size() > jinja_max_built_size) {
      throw jinja_error("tojson's text passes " + std::to_string(jinja_max_built_size) + " characters");
    }
    if (v.is_none()) {
      out += "null";
    } else if (v.is_bool()) {
      out += v.as_bool() ? "true" : "false";
    } else if (v.is_int()) {
      out += std::to_string(v.as_int());
    } else if (v.is_float()) {
      const double d = v.as_double();
      out += std::isnan(d) ? "NaN" : std::isinf(d) ? (d < 0 ? "-Infinity" : "Infinity") : python_float_repr(d);
    } else if (v.is_string()) {
      json_string(v.as_string(), out, ensure_ascii);
    } else if (v.is_list()) {
      write_list(v.as_list(), level);
    } else if (v.is_dict()) {
      write_dict(v.as_dict(), level);
    } else {
      throw jinja_error("Object of type " + v.type_name() + " is not JSON serializable");
    }
  }

  void write_list(const jinja_list& list, int level) {
    if (list.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out += item_separator;
      newline(level + 1);
      write(list[i], level + 1);
    }
    newline(level);
    out += ']';
  }

  void write_dict(const jinja_dict& dict, int level) {
    if (dict.items.empty()) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<std::string, jinja_value>*> items;
    items.reserve(dict.items.size());
    for (const auto& item : dict.items) items.push_back(&item);
    if (sort_keys) std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
    out += '{';
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += item_separator;
      newline(level + 1);
      json_string(items[i]->first, out, ensure_ascii);
      out += key_separator;
      write(items[i]->second, level + 1);
    }
    newline(level);
    out += '}';
  }
};

}  // namespace

void append_bounded(std::string& out, std::string_view piece, const char* what) {
  if (piece.size() > jinja_max_built_size - std::min(out.size(), jinja_max_built_size)) {
    throw jinja_error(std::string(what) + " passes " + std::to_string(jinja_max_built_size) + " characters");
  }
  jinja_charge(jinja_steps_for_bytes(piece.size()));
  out += piece;
}

std::string jinja_value::str() const {
  if (is_undefined()) return "";
  if (is_none()) return "None";
  if (is_bool()) return as_bool() ? "True" : "False";
  if (is_int()) return std::to_string(as_int());
  if (is_float()) return python_float_repr(as_double());
  if (is_string()) return as_string();
  if (is_list()) {
    std::string out = is_tuple() ? "(" : "[";
    const auto& list = as_list();
    for (std::size_t i = 0; i < list.size(); ++i)
      append_bounded(out, (i > 0 ? ", " : "") + list[i].repr(), "a list's text");
    if (is_tuple()) return out + (list.size() == 1 ? ",)" : ")");
    return out + "]";
  }
  if (is_dict()) {
    const auto& dict = as_dict();
    std::string out = dict.is_namespace ? "<Namespace {" : "{";
    for (std::size_t i = 0; i < dict.items.size(); ++i) {
      append_bounded(out,
                     (i > 0 ? ", " : "") + python_string_repr(dict.items[i].first) + ": " + dict.items[i].second.repr(),
                     "a dict's text");
    }
    return out + (dict.is_namespace ? "}>" : "}");
  }
  return "<function " + as_callable().name + ">";
}

std::string jinja_value::repr() const {
  if (is_string()) return python_string_repr(as_string());
  if (is_undefined()) return "Undefined";
  return str();
}

std::string jinja_value::to_json(int indent, const std::string& item_separator, const std::string& key_separator,
                                 bool sort_keys, bool ensure_ascii) const {
  json_writer writer{indent, item_separator, key_separator, sort_keys, ensure_ascii, {}};
  writer.write(*this, 0);
  return std::move(writer.out);
}

std::string jinja_value::type_name() const {
  if (is_undefined()) return "Undefined";
  if (is_none()) return "NoneType";
  if (is_bool()) return "bool";
  if (is_int()) return "int";
  if (is_float()) return "float";
  if (is_string()) return "str";
  if (is_list()) return is_tuple() ? "tuple" : "list";
  if (is_dict()) return as_dict().is_namespace ? "Namespace" : "dict";
  return "function";
}

jinja_list jinja_value::iterate() const {
  if (is_undefined()) return {};
  // a string gives a string a character
  jinja_charge(jinja_steps_for_items(is_string() ? as_string().size() : is_list() ? as_list().size() : 0));
  if (is_dict()) jinja_charge(jinja_steps_for_items(as_dict().items.size()));
  if (is_list()) return as_list();
  if (is_dict()) {
    jinja_list keys;
    for (const auto& item : as_dict().items) keys.emplace_back(item.first);
    return keys;
  }
  if (is_string()) {
    jinja_list chars;
    for (auto& ch : utf8_chars(as_string())) chars.emplace_back(std::move(ch));
    return chars;
  }
  throw jinja_error("'" + type_name() + "' object is not iterable");
}

bool jinja_equal(const jinja_value& a, const jinja_value& b) {
  if ((a.is_number() || a.is_bool()) && (b.is_number() || b.is_bool())) {
    if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
    return a.as_double() == b.as_double() && (a.is_bool() ? a.as_bool() : a.as_int()) ==
                                                 (b.is_bool() ? static_cast<std::int64_t>(b.as_bool()) : b.as_int());
  }
  if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
  if (a.is_none() && b.is_none()) return true;
  if (a.is_undefined() && b.is_undefined()) return true;
  if (a.is_list() && b.is_list()) {
    const auto& x = a.as_list();
    const auto& y = b.as_list();
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!jinja_equal(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_dict() && b.is_dict()) {
    const auto& x = a.as_dict();
    const auto& y = b.as_dict();
    if (&x == &y) return true;
    if (x.is_namespace || y.is_namespace || x.items.size() != y.items.size()) return false;
    for (const auto& [key, value] : x.items) {
      const auto* other = y.find(key);
      if (other == nullptr || !jinja_equal(value, *other)) return false;
    }
    return true;
  }
  if (a.is_callable() && b.is_callable()) return &a.as_callable() == &b.as_callable();
  return false;
}

bool jinja_less(const jinja_value& a, const jinja_value& b) {
  if ((a.is_number() || a.is_bool()) && (b.is_number() || b.is_bool())) {
    if (a.is_int() && b.is_int()) return a.as_int() < b.as_int();
    return a.as_double() < b.as_double();
  }
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();  // UTF-8 keeps code point order
  if (a.is_list() && b.is_list()) {
    const auto& x = a.as_list();
    const auto& y = b.as_list();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (jinja_less(x[i], y[i])) return true;
      if (jinja_less(y[i], x[i])) return false;
    }
    return x.size() < y.size();
  }
  throw jinja_error("'<' not supported between instances of '" + a.type_name() + "' and '" + b.type_name() + "'");
}

}  // namespace ironbench::serve::chat
