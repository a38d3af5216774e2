// Text that came from a server made safe to keep and write: JSON output (nlohmann's dump, the
// results database) refuses invalid UTF-8, so a server that sends a stray byte must not cost
// the run its results. Invalid bytes become U+FFFD, as Python's errors="replace" does.
#pragma once

#include <string>
#include <string_view>

namespace ironbench::serve {

/// Whether `text` is well-formed UTF-8 (no overlong forms, surrogates or code points above
/// U+10FFFF; a sequence cut at the end is invalid).
[[nodiscard]] bool is_valid_utf8(std::string_view text);

/// `text` with every maximal invalid subsequence replaced by U+FFFD (the Unicode standard's
/// "substitution of maximal subparts"); valid text comes back unchanged.
[[nodiscard]] std::string repaired_utf8(std::string_view text);

}  // namespace ironbench::serve
