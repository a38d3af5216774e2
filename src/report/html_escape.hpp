// Making text from results safe inside HTML: every host name, model name and server error
// may contain markup, and none of it may ever run.
#pragma once

#include <string>
#include <string_view>

#include "core/json.hpp"

namespace ironbench::report {

/// Text for HTML element content and quoted attribute values: & < > " ' escaped.
[[nodiscard]] std::string escape_html(std::string_view text);

/// JSON for a <script type="application/json"> element: `<`, `>`, `&`, U+2028 and U+2029
/// written as \u escapes, so no string in it can close the element or open another.
[[nodiscard]] std::string json_for_script(const json& document);

}  // namespace ironbench::report
