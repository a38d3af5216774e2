// What this binary is: version, git revision, compiler, features, libraries. Stored as the
// `tool` object of every result and printed by `ironbench version`.
#pragma once

#include "core/json.hpp"

namespace ironbench::session {

[[nodiscard]] json build_description();

}  // namespace ironbench::session
