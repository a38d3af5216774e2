// Standard base64, for the Authorization header of URL credentials, images sent inline and
// serve-sim's base64 embeddings.
#pragma once

#include <string>

namespace ironbench::serve {

/// Standard base64 (RFC 4648, with padding) of `bytes`.
[[nodiscard]] std::string base64_encoded(const std::string& bytes);

}  // namespace ironbench::serve
