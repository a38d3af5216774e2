// One plain HTTP GET to a server on loopback, for tests that wait for a server to be ready.
#pragma once

#include <optional>
#include <string>

namespace ironbench::testing {

/// The body of a 200 answer to GET `path` on 127.0.0.1:`port`, or nothing (refused, not yet
/// ready, no answer within two seconds). HTTP/1.0, so the server closes after the answer.
[[nodiscard]] std::optional<std::string> http_get(int port, const std::string& path);

}  // namespace ironbench::testing
