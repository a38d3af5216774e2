// What `value.name` and `value[key]` give in a chat template: dict items, list and string
// elements and slices, and the methods of strings, dicts and lists (Python's, bound to the
// value), with Jinja2's rules: an attribute is looked up before an item for `.`, an item
// before an attribute for `[]`, and a missing one is Undefined. Methods that would change a
// value are refused, as transformers' immutable sandbox refuses them.
#pragma once

#include <optional>
#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {

/// object.name. jinja_error when `object` is Undefined.
[[nodiscard]] jinja_value jinja_attribute(const jinja_value& object, const std::string& name);
/// object[key]. jinja_error when `object` is Undefined.
[[nodiscard]] jinja_value jinja_item(const jinja_value& object, const jinja_value& key);
/// object[start:stop:step] (null: left out), for lists and strings.
[[nodiscard]] jinja_value jinja_slice(const jinja_value& object, const std::optional<std::int64_t>& start,
                                      const std::optional<std::int64_t>& stop, const std::optional<std::int64_t>& step);

}  // namespace ironbench::serve::chat
