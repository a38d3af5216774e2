// Jinja2's filters (`value | NAME(args)`) that chat templates use, in one table: tojson (as
// transformers defines it), trim, length, default, join, map, select, selectattr, dictsort,
// indent ... with Jinja2's results for Python's types.
#pragma once

#include <string>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {

/// `input | name(args)`. jinja_error for a filter that does not exist or a value it rejects.
[[nodiscard]] jinja_value apply_jinja_filter(const std::string& name, const jinja_value& input, const jinja_args& args);

}  // namespace ironbench::serve::chat
