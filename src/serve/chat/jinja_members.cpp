#include "serve/chat/jinja_members.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <system_error>

#include "serve/chat/jinja_work.hpp"
#include "serve/chat/python_text.hpp"
#include "serve/chat/utf8_chars.hpp"

namespace ironbench::serve::chat {
namespace {

using method = jinja_value (*)(const jinja_value& self, const jinja_args& args);

std::optional<std::string> optional_string(const jinja_args& args, std::size_t position, const std::string& name) {
  const auto* v = args.get(position, name);
  if (v == nullptr || v->is_none()) return std::nullopt;
  if (!v->is_string()) throw jinja_error("expected a string argument, got " + v->type_name());
  return v->as_string();
}

std::string string_argument(const jinja_args& args, std::size_t position, const std::string& name,
                            const std::string& method_name) {
  const auto* v = args.get(position, name);
  if (v == nullptr) throw jinja_error(method_name + "() is missing its argument '" + name + "'");
  if (!v->is_string()) throw jinja_error(method_name + "() takes a string, not " + v->type_name());
  return v->as_string();
}

std::int64_t int_argument(const jinja_args& args, std::size_t position, const std::string& name,
                          std::int64_t fallback) {
  const auto* v = args.get(position, name);
  if (v == nullptr) return fallback;
  if (!v->is_int()) throw jinja_error("expected an integer argument, got " + v->type_name());
  return v->as_int();
}

jinja_value string_list(const std::vector<std::string>& parts) {
  jinja_list list;
  for (const auto& p : parts) list.emplace_back(p);
  return list;
}

// startswith/endswith take a string or a tuple of strings.
jinja_value affix_test(const jinja_value& self, const jinja_args& args, bool prefix) {
  const auto* arg = args.get(0, "prefix");
  if (arg == nullptr) throw jinja_error(std::string(prefix ? "startswith" : "endswith") + "() needs an argument");
  const auto& text = self.as_string();
  const auto matches = [&](const jinja_value& affix) {
    if (!affix.is_string()) throw jinja_error("startswith/endswith take strings, not " + affix.type_name());
    return prefix ? text.starts_with(affix.as_string()) : text.ends_with(affix.as_string());
  };
  if (arg->is_list()) return std::any_of(arg->as_list().begin(), arg->as_list().end(), matches);
  return matches(*arg);
}

// str.format with {} / {0} / {name} fields (no format specs).
jinja_value format_method(const jinja_value& self, const jinja_args& args) {
  const auto& text = self.as_string();
  std::string out;
  std::size_t next_auto = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      const auto close = text.find('}', i);
      if (close == std::string::npos) throw jinja_error("Single '{' encountered in format string");
      const std::string field = text.substr(i + 1, close - i - 1);
      if (field.find_first_of(":!.[") != std::string::npos) {
        throw jinja_error("format fields with specs or conversions are not supported: {" + field + "}");
      }
      const jinja_value* value = nullptr;
      if (field.empty()) {
        value = next_auto < args.positional.size() ? &args.positional[next_auto] : nullptr;
        ++next_auto;
      } else if (std::all_of(field.begin(), field.end(), [](char d) { return d >= '0' && d <= '9'; })) {
        std::uint64_t index = 0;  // std::stoul threw std::out_of_range past 2^64, uncaught
        if (std::from_chars(field.data(), field.data() + field.size(), index).ec != std::errc()) {
          throw jinja_error("Too many decimal digits in format string: {" + field + "}");  // as Python
        }
        value = index < args.positional.size() ? &args.positional[index] : nullptr;
      } else {
        value = args.get(static_cast<std::size_t>(-1), field);
      }
      if (value == nullptr) throw jinja_error("format string field {" + field + "} has no argument");
      append_bounded(out, value->str(), "format()");
      i = close;
    } else if (c == '}') {
      throw jinja_error("Single '}' encountered in format string");
    } else {
      out += c;
    }
  }
  return out;
}

const std::map<std::string, method>& string_methods() {
  static const std::map<std::string, method> table{
      {"strip",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         return python_strip(s.as_string(), strip_side::both, optional_string(a, 0, "chars"));
       }},
      {"lstrip",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         return python_strip(s.as_string(), strip_side::left, optional_string(a, 0, "chars"));
       }},
      {"rstrip",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         return python_strip(s.as_string(), strip_side::right, optional_string(a, 0, "chars"));
       }},
      {"split",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         const auto sep = optional_string(a, 0, "sep");
         if (sep && sep->empty()) throw jinja_error("split(): empty separator");  // Python's ValueError
         return string_list(python_split(s.as_string(), sep, int_argument(a, 1, "maxsplit", -1)));
       }},
      {"splitlines",
       [](const jinja_value& s, const jinja_args&) -> jinja_value {
         return string_list(python_splitlines(s.as_string()));
       }},
      {"startswith", [](const jinja_value& s, const jinja_args& a) { return affix_test(s, a, true); }},
      {"endswith", [](const jinja_value& s, const jinja_args& a) { return affix_test(s, a, false); }},
      {"upper", [](const jinja_value& s, const jinja_args&) -> jinja_value { return python_upper(s.as_string()); }},
      {"lower", [](const jinja_value& s, const jinja_args&) -> jinja_value { return python_lower(s.as_string()); }},
      {"title", [](const jinja_value& s, const jinja_args&) -> jinja_value { return python_title(s.as_string()); }},
      {"capitalize",
       [](const jinja_value& s, const jinja_args&) -> jinja_value { return python_capitalize(s.as_string()); }},
      {"replace",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         return python_replace(s.as_string(), string_argument(a, 0, "old", "replace"),
                               string_argument(a, 1, "new", "replace"), int_argument(a, 2, "count", -1));
       }},
      {"find",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         const auto at = s.as_string().find(string_argument(a, 0, "sub", "find"));
         return at == std::string::npos ? std::int64_t{-1}
                                        : static_cast<std::int64_t>(python_length(s.as_string().substr(0, at)));
       }},
      {"count",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         const auto sub = string_argument(a, 0, "sub", "count");
         if (sub.empty()) return static_cast<std::int64_t>(python_length(s.as_string()) + 1);
         std::int64_t n = 0;
         for (auto at = s.as_string().find(sub); at != std::string::npos;
              at = s.as_string().find(sub, at + sub.size())) {
           ++n;
         }
         return n;
       }},
      {"join",
       [](const jinja_value& s, const jinja_args& a) -> jinja_value {
         const auto* items = a.get(0, "iterable");
         if (items == nullptr) throw jinja_error("join() needs an argument");
         std::string out;
         bool first = true;
         for (const auto& item : items->iterate()) {
           if (!item.is_string()) throw jinja_error("join() takes strings, found " + item.type_name());
           if (!first) append_bounded(out, s.as_string(), "join()");
           first = false;
           append_bounded(out, item.as_string(), "join()");
         }
         return out;
       }},
      {"isdigit",
       [](const jinja_value& s, const jinja_args&) -> jinja_value {
         const auto& t = s.as_string();
         return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
       }},
      {"isspace",
       [](const jinja_value& s, const jinja_args&) -> jinja_value {
         const auto chars = utf8_chars(s.as_string());
         return !chars.empty() && std::all_of(chars.begin(), chars.end(), python_whitespace);
       }},
      {"format", format_method},
  };
  return table;
}

const std::map<std::string, method>& dict_methods() {
  static const std::map<std::string, method> table{
      {"items",
       [](const jinja_value& d, const jinja_args&) -> jinja_value {
         jinja_list items;
         for (const auto& [k, v] : d.as_dict().items) items.push_back(jinja_value::tuple({k, v}));
         return items;
       }},
      {"keys",
       [](const jinja_value& d, const jinja_args&) -> jinja_value {
         jinja_list keys;
         for (const auto& item : d.as_dict().items) keys.emplace_back(item.first);
         return keys;
       }},
      {"values",
       [](const jinja_value& d, const jinja_args&) -> jinja_value {
         jinja_list values;
         for (const auto& item : d.as_dict().items) values.push_back(item.second);
         return values;
       }},
      {"get",
       [](const jinja_value& d, const jinja_args& a) -> jinja_value {
         const auto* key = a.get(0, "key");
         if (key == nullptr) throw jinja_error("get() needs a key");
         const auto* fallback = a.get(1, "default");
         const auto* found = key->is_string() ? d.as_dict().find(key->as_string()) : nullptr;
         if (found != nullptr) return *found;
         return fallback != nullptr ? *fallback : jinja_value::none();
       }},
  };
  return table;
}

const std::map<std::string, method>& list_methods() {
  static const std::map<std::string, method> table{
      {"index",
       [](const jinja_value& l, const jinja_args& a) -> jinja_value {
         const auto* x = a.get(0, "value");
         if (x == nullptr) throw jinja_error("index() needs a value");
         const auto& list = l.as_list();
         for (std::size_t i = 0; i < list.size(); ++i) {
           if (jinja_equal(list[i], *x)) return static_cast<std::int64_t>(i);
         }
         throw jinja_error(x->repr() + " is not in list");
       }},
      {"count",
       [](const jinja_value& l, const jinja_args& a) -> jinja_value {
         const auto* x = a.get(0, "value");
         if (x == nullptr) throw jinja_error("count() needs a value");
         return static_cast<std::int64_t>(
             std::count_if(l.as_list().begin(), l.as_list().end(), [&](const auto& v) { return jinja_equal(v, *x); }));
       }},
  };
  return table;
}

// The methods transformers' ImmutableSandboxedEnvironment refuses: they would change a value.
bool mutating_method(const jinja_value& object, const std::string& name) {
  static const std::set<std::string> list_mutators{"append", "extend", "insert", "pop",
                                                   "remove", "clear",  "sort",   "reverse"};
  static const std::set<std::string> dict_mutators{"pop", "popitem", "setdefault", "update", "clear"};
  if (object.is_list()) return list_mutators.contains(name);
  if (object.is_dict() && !object.as_dict().is_namespace) return dict_mutators.contains(name);
  return false;
}

jinja_value bound(const jinja_value& self, const std::string& name, method m) {
  return jinja_callable{name, [self, m](const jinja_args& args) { return m(self, args); }};
}

std::optional<std::int64_t> python_index(std::int64_t index, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return index;
}

}  // namespace

jinja_value jinja_attribute(const jinja_value& object, const std::string& name) {
  if (object.is_undefined()) {
    throw jinja_error("'" + object.undefined_name() + "' is undefined (looking up '." + name + "')");
  }
  if (mutating_method(object, name)) {
    throw jinja_error("access to attribute '" + name + "' of '" + object.type_name() + "' object is unsafe");
  }
  jinja_charge_for(object);  // a method binds it and goes over it
  const std::map<std::string, method>* methods = object.is_string() ? &string_methods()
                                                 : object.is_dict() && !object.as_dict().is_namespace ? &dict_methods()
                                                 : object.is_list()                                   ? &list_methods()
                                                                                                      : nullptr;
  if (methods != nullptr) {
    if (const auto m = methods->find(name); m != methods->end()) return bound(object, name, m->second);
  }
  if (object.is_dict()) {
    if (const auto* found = object.as_dict().find(name)) return *found;
  }
  return jinja_value::undefined("'" + object.type_name() + " object' has no attribute '" + name + "'");
}

jinja_value jinja_item(const jinja_value& object, const jinja_value& key) {
  if (object.is_undefined()) {
    throw jinja_error("'" + object.undefined_name() + "' is undefined (looking up [" + key.repr() + "])");
  }
  if (object.is_dict() && key.is_string()) {
    if (const auto* found = object.as_dict().find(key.as_string())) return *found;
  } else if (object.is_list() && (key.is_int() || key.is_bool())) {
    const auto& list = object.as_list();
    if (const auto i = python_index(key.is_int() ? key.as_int() : key.as_bool(), list.size())) {
      return list[static_cast<std::size_t>(*i)];
    }
  } else if (object.is_string() && key.is_int()) {
    jinja_charge(jinja_steps_for_items(object.as_string().size()));  // a string a character
    const auto chars = utf8_chars(object.as_string());
    if (const auto i = python_index(key.as_int(), chars.size())) return chars[static_cast<std::size_t>(*i)];
  }
  if (key.is_string()) return jinja_attribute(object, key.as_string());
  return jinja_value::undefined("'" + object.type_name() + " object' has no element " + key.repr());
}

jinja_value jinja_slice(const jinja_value& object, const std::optional<std::int64_t>& start,
                        const std::optional<std::int64_t>& stop, const std::optional<std::int64_t>& step) {
  if (object.is_undefined()) throw jinja_error("'" + object.undefined_name() + "' is undefined (slicing it)");
  const std::int64_t by = step.value_or(1);
  if (by == 0) throw jinja_error("slice step cannot be zero");
  jinja_charge(jinja_steps_for_items(object.is_string() ? object.as_string().size()
                                     : object.is_list() ? object.as_list().size()
                                                        : 0));
  jinja_list elements;
  if (object.is_list()) {
    elements = object.as_list();
  } else if (object.is_string()) {
    for (auto& ch : utf8_chars(object.as_string())) elements.emplace_back(std::move(ch));
  } else {
    throw jinja_error("'" + object.type_name() + "' object is not subscriptable");
  }
  const auto n = static_cast<std::int64_t>(elements.size());
  // Python's slice.indices(n)
  const auto clamp = [&](std::optional<std::int64_t> v, std::int64_t fallback) {
    if (!v) return fallback;
    std::int64_t i = *v < 0 ? *v + n : *v;
    if (by > 0) return std::clamp<std::int64_t>(i, 0, n);
    return std::clamp<std::int64_t>(i, -1, n - 1);
  };
  const std::int64_t first = clamp(start, by > 0 ? 0 : n - 1);
  const std::int64_t last = clamp(stop, by > 0 ? n : -1);
  jinja_list out;
  for (std::int64_t i = first; by > 0 ? i < last : i > last; i += by)
    out.push_back(elements[static_cast<std::size_t>(i)]);
  if (object.is_string()) {
    std::string text;
    for (const auto& ch : out) text += ch.as_string();
    return text;
  }
  return out;
}

}  // namespace ironbench::serve::chat
