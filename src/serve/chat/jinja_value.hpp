// The values a chat template computes with, behaving as Jinja2's Python values do (what
// Hugging Face transformers renders chat templates with): None, booleans, integers, floats,
// strings, lists, insertion-ordered dicts, callables, and Jinja's Undefined. Printing,
// truthiness, comparison and JSON follow Python's rules so that a template renders the same
// text here as in transformers' apply_chat_template.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace ironbench::serve::chat {

class jinja_value;
using jinja_list = std::vector<jinja_value>;

/// A dict: keys in insertion order (Python's dict), string keys only (what JSON gives).
struct jinja_dict {
  std::vector<std::pair<std::string, jinja_value>> items;
  bool is_namespace = false;  ///< made by namespace(): its attributes may be assigned

  [[nodiscard]] const jinja_value* find(const std::string& key) const;
  /// Sets `key`, keeping its place when present.
  void set(const std::string& key, jinja_value value);
};

/// Arguments of a call: positional, then keyword.
struct jinja_args {
  std::vector<jinja_value> positional;
  std::vector<std::pair<std::string, jinja_value>> keyword;

  /// The argument at `position` or named `name`; nullptr when neither was given.
  [[nodiscard]] const jinja_value* get(std::size_t position, const std::string& name) const;
};

/// A function a template can call (a macro, namespace(), a bound string method ...).
struct jinja_callable {
  std::string name;
  std::function<jinja_value(const jinja_args&)> call;
};

/// Thrown when a template cannot be rendered: an unknown filter, a type error, an undefined
/// value used where Jinja would raise, raise_exception(...). The message says which.
class jinja_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The most bytes (or list items) one template may build: a repeated sequence (`'ab' * n`), an
/// indented text, the rendered text itself. Real chat templates build kilobytes and the longest
/// prompts megabytes; a larger value is a jinja_error, not memory filled without bound.
inline constexpr std::size_t jinja_max_built_size = std::size_t{1} << 26;  // 64 MiB

/// `out += piece`; a jinja_error naming `what` when `out` would pass jinja_max_built_size.
void append_bounded(std::string& out, std::string_view piece, const char* what);

class jinja_value {
 public:
  struct undefined_type {
    std::string name;  ///< what was looked up, for messages
  };
  struct none_type {};

  jinja_value() : data_(undefined_type{}) {}
  static jinja_value undefined(std::string name) { return jinja_value(undefined_type{std::move(name)}); }
  static jinja_value none() { return jinja_value(none_type{}); }
  jinja_value(bool b) : data_(b) {}                            // NOLINT(google-explicit-constructor): literals
  jinja_value(std::int64_t i) : data_(i) {}                    // NOLINT(google-explicit-constructor)
  jinja_value(int i) : data_(static_cast<std::int64_t>(i)) {}  // NOLINT(google-explicit-constructor)
  jinja_value(double d) : data_(d) {}                          // NOLINT(google-explicit-constructor)
  jinja_value(std::string s) : data_(std::move(s)) {}          // NOLINT(google-explicit-constructor)
  jinja_value(const char* s) : data_(std::string(s)) {}        // NOLINT(google-explicit-constructor)
  jinja_value(jinja_list list) : data_(std::make_shared<jinja_list>(std::move(list))) {}      // NOLINT
  jinja_value(jinja_dict dict) : data_(std::make_shared<jinja_dict>(std::move(dict))) {}      // NOLINT
  jinja_value(jinja_callable fn) : data_(std::make_shared<jinja_callable>(std::move(fn))) {}  // NOLINT

  /// A tuple: a list that prints as (a, b) (dict.items() gives them).
  static jinja_value tuple(jinja_list items) {
    jinja_value v(std::move(items));
    v.tuple_ = true;
    return v;
  }
  /// A JSON value as Python's json.loads gives it (objects keep their key order).
  static jinja_value from_json(const nlohmann::ordered_json& j);

  [[nodiscard]] bool is_undefined() const { return std::holds_alternative<undefined_type>(data_); }
  [[nodiscard]] bool is_none() const { return std::holds_alternative<none_type>(data_); }
  [[nodiscard]] bool is_bool() const { return std::holds_alternative<bool>(data_); }
  [[nodiscard]] bool is_int() const { return std::holds_alternative<std::int64_t>(data_); }
  [[nodiscard]] bool is_float() const { return std::holds_alternative<double>(data_); }
  [[nodiscard]] bool is_number() const { return is_int() || is_float(); }  ///< not booleans
  [[nodiscard]] bool is_string() const { return std::holds_alternative<std::string>(data_); }
  /// Lists and tuples.
  [[nodiscard]] bool is_list() const { return std::holds_alternative<std::shared_ptr<jinja_list>>(data_); }
  [[nodiscard]] bool is_tuple() const { return tuple_; }
  [[nodiscard]] bool is_dict() const { return std::holds_alternative<std::shared_ptr<jinja_dict>>(data_); }
  [[nodiscard]] bool is_callable() const { return std::holds_alternative<std::shared_ptr<jinja_callable>>(data_); }

  [[nodiscard]] bool as_bool() const { return std::get<bool>(data_); }
  [[nodiscard]] std::int64_t as_int() const { return std::get<std::int64_t>(data_); }
  /// An integer, float or boolean as a double.
  [[nodiscard]] double as_double() const;
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(data_); }
  [[nodiscard]] const jinja_list& as_list() const { return *std::get<std::shared_ptr<jinja_list>>(data_); }
  [[nodiscard]] jinja_dict& as_dict() const { return *std::get<std::shared_ptr<jinja_dict>>(data_); }
  [[nodiscard]] const jinja_callable& as_callable() const { return *std::get<std::shared_ptr<jinja_callable>>(data_); }
  [[nodiscard]] const std::string& undefined_name() const { return std::get<undefined_type>(data_).name; }

  /// Python's truth value (Undefined, None, 0, "", [] and {} are false).
  [[nodiscard]] bool truthy() const;
  /// What {{ value }} prints: Python's str() (Undefined prints nothing).
  [[nodiscard]] std::string str() const;
  /// Python's repr(): strings quoted, as inside a printed list.
  [[nodiscard]] std::string repr() const;
  /// json.dumps(value, ensure_ascii=..., indent=indent, separators=..., sort_keys=...);
  /// `indent` < 0: on one line. jinja_error for Undefined and callables.
  [[nodiscard]] std::string to_json(int indent, const std::string& item_separator, const std::string& key_separator,
                                    bool sort_keys, bool ensure_ascii = false) const;
  /// The Python type's name ("str", "dict", ...), for messages.
  [[nodiscard]] std::string type_name() const;

  /// The elements iterating over it gives: a list's items, a dict's keys, a string's
  /// characters (UTF-8 code points), nothing for Undefined; jinja_error otherwise.
  [[nodiscard]] jinja_list iterate() const;

 private:
  explicit jinja_value(undefined_type u) : data_(std::move(u)) {}
  explicit jinja_value(none_type n) : data_(n) {}
  std::variant<undefined_type, none_type, bool, std::int64_t, double, std::string, std::shared_ptr<jinja_list>,
               std::shared_ptr<jinja_dict>, std::shared_ptr<jinja_callable>>
      data_;
  bool tuple_ = false;
};

/// Python's ==.
[[nodiscard]] bool jinja_equal(const jinja_value& a, const jinja_value& b);
/// Python's <, for numbers, strings and lists; jinja_error for other pairs.
[[nodiscard]] bool jinja_less(const jinja_value& a, const jinja_value& b);
/// Python's repr() of a float: the shortest text that reads back as the same double.
[[nodiscard]] std::string python_float_repr(double value);

}  // namespace ironbench::serve::chat
