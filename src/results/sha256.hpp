// SHA-256 (FIPS 180-4), for identities derived from content: a run's uuid when it was written
// without one (results/run_uuid.hpp). Not for secrets.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ironbench::results {

/// The SHA-256 digest of `bytes`.
[[nodiscard]] std::array<std::uint8_t, 32> sha256(std::string_view bytes);

/// The digest as 64 lowercase hex digits.
[[nodiscard]] std::string sha256_hex(std::string_view bytes);

}  // namespace ironbench::results
