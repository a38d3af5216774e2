#include "serve/chat/jinja_filters.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "serve/chat/jinja_members.hpp"
#include "serve/chat/jinja_tests.hpp"
#include "serve/chat/jinja_work.hpp"
#include "serve/chat/python_text.hpp"
#include "serve/chat/utf8_chars.hpp"

namespace ironbench::serve::chat {
namespace {

using filter_fn = jinja_value (*)(const jinja_value& input, const jinja_args& args);

// Python's integers have no bound and these have 64 bits: a result beyond them is this error,
// never a wrapped or undefined conversion.
[[noreturn]] void beyond_64_bits(const std::string& what) {
  throw jinja_error(what + " does not fit in a 64-bit integer");
}

// A finite double truncated toward zero, as Python's int(x).
std::int64_t truncated(double x, const std::string& what) {
  // -2^63 and 2^63 are exact doubles; every double in between truncates into the range.
  if (!(x >= -0x1p63 && x < 0x1p63)) beyond_64_bits(what);
  return static_cast<std::int64_t>(x);
}

// "  -42 " as Python's int(text): an optional sign, digits, blanks around. nullopt when the text
// is not an integer; beyond_64_bits when it is one too large.
std::optional<std::int64_t> integer_text(const std::string& text) {
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
  if (error == std::errc::result_out_of_range) beyond_64_bits("int('" + text + "')");
  if (error != std::errc()) return std::nullopt;
  return value;
}

bool flag(const jinja_args& args, std::size_t position, const std::string& name, bool fallback) {
  const auto* v = args.get(position, name);
  return v == nullptr ? fallback : v->truthy();
}

std::optional<std::string> text_argument(const jinja_args& args, std::size_t position, const std::string& name) {
  const auto* v = args.get(position, name);
  if (v == nullptr || v->is_none()) return std::nullopt;
  return v->str();
}

// An attribute path "a.b.0" looked up in `item` (Jinja2's make_attrgetter).
jinja_value attribute_path(const jinja_value& item, const std::string& path) {
  jinja_value current = item;
  for (const auto& part : python_split(path, std::string("."))) {
    const bool digits =
        !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::int64_t index = 0;
    if (digits && std::from_chars(part.data(), part.data() + part.size(), index).ec != std::errc()) {
      return jinja_value::undefined(path);  // an index past 64 bits is past every list's end
    }
    current = digits ? jinja_item(current, index) : jinja_item(current, part);
    if (current.is_undefined()) break;
  }
  return current;
}

jinja_args rest_of(const jinja_args& args, std::size_t from) {
  jinja_args rest;
  for (std::size_t i = from; i < args.positional.size(); ++i) rest.positional.push_back(args.positional[i]);
  rest.keyword = args.keyword;
  return rest;
}

// select/reject/selectattr/rejectattr
jinja_value select_items(const jinja_value& input, const jinja_args& args, bool by_attribute, bool keep) {
  std::string attribute;
  std::size_t next = 0;
  if (by_attribute) {
    if (args.positional.empty()) throw jinja_error("selectattr/rejectattr need an attribute name");
    attribute = args.positional[0].str();
    next = 1;
  }
  const auto* test = next < args.positional.size() ? &args.positional[next] : nullptr;
  const auto test_args = rest_of(args, next + 1);
  jinja_list out;
  if (!input.truthy()) return out;  // Jinja2: `if seq:` before iterating (so none gives nothing)
  for (const auto& item : input.iterate()) {
    const jinja_value subject = by_attribute ? attribute_path(item, attribute) : item;
    const bool passes = test == nullptr ? subject.truthy() : apply_jinja_test(test->str(), subject, test_args);
    if (passes == keep) out.push_back(item);
  }
  return out;
}

jinja_value map_items(const jinja_value& input, const jinja_args& args) {
  jinja_list out;
  if (!input.truthy()) return out;  // as select
  if (const auto* attribute = args.get(static_cast<std::size_t>(-1), "attribute")) {
    const auto* fallback = args.get(static_cast<std::size_t>(-1), "default");
    for (const auto& item : input.iterate()) {
      auto value = attribute_path(item, attribute->str());
      out.push_back(value.is_undefined() && fallback != nullptr ? *fallback : value);
    }
    return out;
  }
  if (args.positional.empty()) throw jinja_error("map() needs a filter name or attribute=");
  const auto filter = args.positional[0].str();
  const auto filter_args = rest_of(args, 1);
  for (const auto& item : input.iterate()) out.push_back(apply_jinja_filter(filter, item, filter_args));
  return out;
}

// The key a sort compares: strings lower-cased unless case-sensitive.
jinja_value sort_key(const jinja_value& v, bool case_sensitive) {
  return !case_sensitive && v.is_string() ? jinja_value(python_lower(v.as_string())) : v;
}

jinja_value sort_items(const jinja_value& input, const jinja_args& args) {
  const bool reverse = flag(args, 0, "reverse", false);
  const bool case_sensitive = flag(args, 1, "case_sensitive", false);
  const auto attribute = text_argument(args, 2, "attribute");
  auto items = input.iterate();
  jinja_charge(jinja_steps_for_comparisons(items.size() * std::bit_width(items.size())));
  const auto key = [&](const jinja_value& v) {
    return sort_key(attribute ? attribute_path(v, *attribute) : v, case_sensitive);
  };
  std::stable_sort(items.begin(), items.end(), [&](const jinja_value& a, const jinja_value& b) {
    return reverse ? jinja_less(key(b), key(a)) : jinja_less(key(a), key(b));
  });
  return items;
}

jinja_value dictsort(const jinja_value& input, const jinja_args& args) {
  if (!input.is_dict()) throw jinja_error("dictsort needs a dict, not " + input.type_name());
  const bool case_sensitive = flag(args, 0, "case_sensitive", false);
  const auto by = text_argument(args, 1, "by").value_or("key");
  const bool reverse = flag(args, 2, "reverse", false);
  if (by != "key" && by != "value") throw jinja_error("dictsort: by must be 'key' or 'value'");
  jinja_list items;
  for (const auto& [k, v] : input.as_dict().items) items.push_back(jinja_value::tuple({k, v}));
  jinja_charge(jinja_steps_for_comparisons(items.size() * std::bit_width(items.size())));
  const std::size_t position = by == "key" ? 0 : 1;
  std::stable_sort(items.begin(), items.end(), [&](const jinja_value& a, const jinja_value& b) {
    const auto ka = sort_key(a.as_list()[position], case_sensitive);
    const auto kb = sort_key(b.as_list()[position], case_sensitive);
    return reverse ? jinja_less(kb, ka) : jinja_less(ka, kb);
  });
  return items;
}

jinja_value unique_items(const jinja_value& input, const jinja_args& args) {
  const bool case_sensitive = flag(args, 0, "case_sensitive", false);
  const auto attribute = text_argument(args, 1, "attribute");
  jinja_list out;
  jinja_list seen;
  for (const auto& item : input.iterate()) {
    const auto key = sort_key(attribute ? attribute_path(item, *attribute) : item, case_sensitive);
    jinja_charge(jinja_steps_for_comparisons(seen.size()));  // with every one kept
    if (std::none_of(seen.begin(), seen.end(), [&](const jinja_value& s) { return jinja_equal(s, key); })) {
      seen.push_back(key);
      out.push_back(item);
    }
  }
  return out;
}

jinja_value extreme(const jinja_value& input, const jinja_args& args, bool largest) {
  const bool case_sensitive = flag(args, 0, "case_sensitive", false);
  const auto attribute = text_argument(args, 1, "attribute");
  const auto items = input.iterate();
  if (items.empty()) return jinja_value::undefined("no items");
  const jinja_value* best = &items[0];
  const auto key = [&](const jinja_value& v) {
    return sort_key(attribute ? attribute_path(v, *attribute) : v, case_sensitive);
  };
  for (const auto& item : items) {
    if (largest ? jinja_less(key(*best), key(item)) : jinja_less(key(item), key(*best))) best = &item;
  }
  return *best;
}

jinja_value tojson(const jinja_value& input, const jinja_args& args) {
  // transformers' tojson: json.dumps(x, ensure_ascii=False, indent=indent, separators=separators,
  // sort_keys=sort_keys)
  const auto* indent_value = args.get(1, "indent");
  int indent = -1;
  if (indent_value != nullptr && !indent_value->is_none()) {
    if (!indent_value->is_int() || indent_value->as_int() < 0 || indent_value->as_int() > 64) {
      throw jinja_error("tojson: indent must be an integer from 0 to 64");
    }
    indent = static_cast<int>(indent_value->as_int());
  }
  std::string item_separator = indent < 0 ? ", " : ",";
  std::string key_separator = ": ";
  if (const auto* separators = args.get(2, "separators"); separators != nullptr && !separators->is_none()) {
    if (!separators->is_list() || separators->as_list().size() != 2) {
      throw jinja_error("tojson: separators must be a pair of strings");
    }
    item_separator = separators->as_list()[0].str();
    key_separator = separators->as_list()[1].str();
  }
  return input.to_json(indent, item_separator, key_separator, flag(args, 3, "sort_keys", false),
                       flag(args, 0, "ensure_ascii", false));
}

jinja_value indent_filter(const jinja_value& input, const jinja_args& args) {
  const auto* width = args.get(0, "width");
  if (width != nullptr && width->is_int() && width->as_int() > 1000000) {
    throw jinja_error("indent: a width of more than a million spaces");
  }
  std::string indention =
      width == nullptr ? "    "
      : width->is_string()
          ? width->as_string()
          : std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, width->is_int() ? width->as_int() : 4)),
                        ' ');
  const bool first = flag(args, 1, "first", false);
  const bool blank = flag(args, 2, "blank", false);
  auto lines = python_splitlines(input.str() + "\n");
  if (indention.size() * lines.size() > jinja_max_built_size) {
    throw jinja_error("indent: " + std::to_string(lines.size()) + " lines indented by " +
                      std::to_string(indention.size()) + " characters pass " + std::to_string(jinja_max_built_size));
  }
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n";
    if (i > 0 && (blank || !lines[i].empty())) out += indention;
    out += lines[i];
  }
  return first ? indention + out : out;
}

// markupsafe's escape (&#34; and &#39; for quotes), which Jinja2's `escape` filter prints; the
// report's escape_html writes &quot; instead.
std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Jinja2's int filter: int(x) for numbers, int(text) then int(float(text)) for strings, the
// default (0) for what has no integer value (text, inf, nan).
jinja_value to_int(const jinja_value& input, const jinja_args& args) {
  const auto* fallback = args.get(0, "default");
  const jinja_value otherwise = fallback != nullptr ? *fallback : jinja_value(0);
  if (input.is_int()) return input;
  if (input.is_bool()) return static_cast<std::int64_t>(input.as_bool());
  if (input.is_float()) {
    const double x = input.as_double();
    return std::isfinite(x) ? jinja_value(truncated(x, "int(" + input.str() + ")")) : otherwise;
  }
  if (input.is_string()) {
    const auto text = python_strip(input.as_string(), strip_side::both);
    if (const auto exact = integer_text(text)) return *exact;
    try {
      std::size_t used = 0;
      const auto value = std::stod(text, &used);
      if (used == text.size() && std::isfinite(value)) return truncated(value, "int('" + text + "')");
    } catch (const std::invalid_argument&) {
    } catch (const std::out_of_range&) {  // int(float('1e999')) is an OverflowError: the default
    }
  }
  return otherwise;
}

jinja_value to_float(const jinja_value& input, const jinja_args& args) {
  const auto* fallback = args.get(0, "default");
  const jinja_value otherwise = fallback != nullptr ? *fallback : jinja_value(0.0);
  if (input.is_number() || input.is_bool()) return input.as_double();
  if (input.is_string()) {
    const auto text = python_strip(input.as_string(), strip_side::both);
    try {
      std::size_t used = 0;
      const auto value = std::stod(text, &used);
      if (used == text.size()) return value;
    } catch (const std::exception&) {
    }
  }
  return otherwise;
}

// Python's round(n, precision) of an integer: the integer itself for precision >= 0, else the
// nearest multiple of 10^-precision, halves to even; exact, as Python's.
jinja_value round_integer(std::int64_t n, std::int64_t precision) {
  if (precision >= 0) return n;
  if (precision < -19) return std::int64_t{0};  // |n| < 2^63 < 10^20 / 2
  std::uint64_t unit = 1;
  for (std::int64_t i = 0; i < -precision; ++i) unit *= 10;  // 10^19 at most: fits in 64 bits
  const std::uint64_t magnitude = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::uint64_t units = magnitude / unit;
  const std::uint64_t rest = magnitude % unit;
  if (rest > unit - rest || (rest == unit - rest && units % 2 == 1)) ++units;
  std::uint64_t rounded = 0;
  const auto what = "round(" + std::to_string(n) + ", " + std::to_string(precision) + ")";
  if (__builtin_mul_overflow(units, unit, &rounded)) beyond_64_bits(what);
  const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (n < 0 ? 1 : 0);
  if (rounded > limit) beyond_64_bits(what);
  return n < 0 ? static_cast<std::int64_t>(0 - rounded) : static_cast<std::int64_t>(rounded);
}

jinja_value round_filter(const jinja_value& input, const jinja_args& args) {
  const auto* precision_value = args.get(0, "precision");
  const std::int64_t precision =
      precision_value != nullptr && precision_value->is_int() ? precision_value->as_int() : 0;
  const auto method = text_argument(args, 1, "method").value_or("common");
  if (!input.is_number() && !input.is_bool()) throw jinja_error("round needs a number, not " + input.type_name());
  if (method != "common" && method != "ceil" && method != "floor") {
    throw jinja_error("round: method must be common, ceil or floor");
  }
  if (input.is_int() && method == "common") return round_integer(input.as_int(), precision);
  const double value = input.as_double();
  // 10^precision as Python's float: 0 below 1e-323, inf above 1e308 (clamped: pow of a huge
  // exponent is the same, and the cast to double stays exact).
  const double scale = std::pow(10.0, static_cast<double>(std::clamp<std::int64_t>(precision, -400, 400)));
  const double x = value * scale;
  if (!std::isfinite(value) || !std::isfinite(x)) return value;  // nothing after the digits kept
  if (scale == 0) return std::copysign(0.0, value);              // rounded to a unit beyond every value
  const double rounded = method == "common" ? std::nearbyint(x)  // Python's round(): halves to even
                         : method == "ceil" ? std::ceil(x)
                                            : std::floor(x);
  return rounded / scale;
}

jinja_value sum_items(const jinja_value& input, const jinja_args& args) {
  const auto attribute = text_argument(args, 0, "attribute");
  const auto* start = args.get(1, "start");
  jinja_value total = start != nullptr ? *start : jinja_value(0);
  for (const auto& item : input.iterate()) {
    const auto v = attribute ? attribute_path(item, *attribute) : item;
    if (!(v.is_number() || v.is_bool()) || !(total.is_number() || total.is_bool())) {
      throw jinja_error("sum: unsupported operand types " + total.type_name() + " and " + v.type_name());
    }
    if ((total.is_int() || total.is_bool()) && (v.is_int() || v.is_bool())) {
      const auto integer = [](const jinja_value& n) { return n.is_int() ? n.as_int() : std::int64_t{n.as_bool()}; };
      std::int64_t next = 0;
      if (__builtin_add_overflow(integer(total), integer(v), &next)) beyond_64_bits("the sum");
      total = next;
    } else {
      total = total.as_double() + v.as_double();
    }
  }
  return total;
}

jinja_value default_filter(const jinja_value& v, const jinja_args& a) {
  const auto* fallback = a.get(0, "default_value");
  const bool boolean = flag(a, 1, "boolean", false);
  if (v.is_undefined() || (boolean && !v.truthy())) return fallback != nullptr ? *fallback : jinja_value("");
  return v;
}

jinja_value length_of(const jinja_value& input, const jinja_args&) {
  if (input.is_string()) return static_cast<std::int64_t>(python_length(input.as_string()));
  if (input.is_list()) return static_cast<std::int64_t>(input.as_list().size());
  if (input.is_dict()) return static_cast<std::int64_t>(input.as_dict().items.size());
  if (input.is_undefined()) return 0;
  throw jinja_error("object of type '" + input.type_name() + "' has no len()");
}

jinja_value join_items(const jinja_value& input, const jinja_args& args) {
  const auto separator = text_argument(args, 0, "d").value_or("");
  const auto attribute = text_argument(args, 1, "attribute");
  std::string out;
  bool first = true;
  for (const auto& item : input.iterate()) {
    if (!first) append_bounded(out, separator, "join");
    first = false;
    append_bounded(out, (attribute ? attribute_path(item, *attribute) : item).str(), "join");
  }
  return out;
}

const std::map<std::string, filter_fn>& filters() {
  static const std::map<std::string, filter_fn> table{
      {"length", length_of},
      {"count", length_of},
      {"tojson", tojson},
      {"trim",
       [](const jinja_value& v, const jinja_args& a) -> jinja_value {
         return python_strip(v.str(), strip_side::both, text_argument(a, 0, "chars"));
       }},
      {"string", [](const jinja_value& v, const jinja_args&) -> jinja_value { return v.str(); }},
      {"safe",
       [](const jinja_value& v, const jinja_args&) -> jinja_value { return v.is_string() ? v : jinja_value(v.str()); }},
      {"default", default_filter},
      {"d", default_filter},
      {"join", join_items},
      {"upper", [](const jinja_value& v, const jinja_args&) -> jinja_value { return python_upper(v.str()); }},
      {"lower", [](const jinja_value& v, const jinja_args&) -> jinja_value { return python_lower(v.str()); }},
      {"title", [](const jinja_value& v, const jinja_args&) -> jinja_value { return python_title(v.str()); }},
      {"capitalize", [](const jinja_value& v, const jinja_args&) -> jinja_value { return python_capitalize(v.str()); }},
      {"replace",
       [](const jinja_value& v, const jinja_args& a) -> jinja_value {
         const auto* count = a.get(2, "count");
         return python_replace(v.str(), text_argument(a, 0, "old").value_or(""),
                               text_argument(a, 1, "new").value_or(""),
                               count != nullptr && count->is_int() ? count->as_int() : -1);
       }},
      {"list", [](const jinja_value& v, const jinja_args&) -> jinja_value { return v.iterate(); }},
      {"items",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         if (v.is_undefined()) return jinja_list{};
         if (!v.is_dict()) throw jinja_error("items needs a dict, not " + v.type_name());
         jinja_list items;
         for (const auto& [k, x] : v.as_dict().items) items.push_back(jinja_value::tuple({k, x}));
         return items;
       }},
      {"dictsort", dictsort},
      {"first",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         const auto items = v.iterate();
         return items.empty() ? jinja_value::undefined("the first item of an empty sequence") : items.front();
       }},
      {"last",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         const auto items = v.iterate();
         return items.empty() ? jinja_value::undefined("the last item of an empty sequence") : items.back();
       }},
      {"reverse",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         auto items = v.iterate();
         std::reverse(items.begin(), items.end());
         if (!v.is_string()) return items;
         std::string text;
         for (const auto& ch : items) text += ch.as_string();
         return text;
       }},
      {"sort", sort_items},
      {"unique", unique_items},
      {"min", [](const jinja_value& v, const jinja_args& a) { return extreme(v, a, false); }},
      {"max", [](const jinja_value& v, const jinja_args& a) { return extreme(v, a, true); }},
      {"sum", sum_items},
      {"abs",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         if (v.is_int() && v.as_int() == std::numeric_limits<std::int64_t>::min()) beyond_64_bits("abs(-2**63)");
         if (v.is_int()) return v.as_int() < 0 ? -v.as_int() : v.as_int();
         if (v.is_float() || v.is_bool()) return std::fabs(v.as_double());
         throw jinja_error("bad operand type for abs(): '" + v.type_name() + "'");
       }},
      {"int", to_int},
      {"float", to_float},
      {"round", round_filter},
      {"map", map_items},
      {"select", [](const jinja_value& v, const jinja_args& a) { return select_items(v, a, false, true); }},
      {"reject", [](const jinja_value& v, const jinja_args& a) { return select_items(v, a, false, false); }},
      {"selectattr", [](const jinja_value& v, const jinja_args& a) { return select_items(v, a, true, true); }},
      {"rejectattr", [](const jinja_value& v, const jinja_args& a) { return select_items(v, a, true, false); }},
      {"indent", indent_filter},
      {"wordcount",
       [](const jinja_value& v, const jinja_args&) -> jinja_value {
         std::int64_t words = 0;
         bool in_word = false;
         for (const char c : v.str()) {
           const bool word_char = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' ||
                                  (static_cast<unsigned char>(c) & 0x80) != 0;
           if (word_char && !in_word) ++words;
           in_word = word_char;
         }
         return words;
       }},
      {"attr",
       [](const jinja_value& v, const jinja_args& a) -> jinja_value {
         return jinja_attribute(v, text_argument(a, 0, "name").value_or(""));
       }},
      {"e", [](const jinja_value& v, const jinja_args&) -> jinja_value { return html_escape(v.str()); }},
      {"escape", [](const jinja_value& v, const jinja_args&) -> jinja_value { return html_escape(v.str()); }},
  };
  return table;
}

}  // namespace

jinja_value apply_jinja_filter(const std::string& name, const jinja_value& input, const jinja_args& args) {
  const auto found = filters().find(name);
  if (found == filters().end()) throw jinja_error("no filter named '" + name + "'");
  jinja_charge_application(input, args);
  return found->second(input, args);
}

}  // namespace ironbench::serve::chat
