// A loopback TCP port for a test server.
#pragma once

namespace ironbench::testing {

/// A port on 127.0.0.1 nobody listens on now, or 0 when none could be found. The server binds
/// it a moment later: another process could take it in between, which on a test machine does
/// not happen in practice.
[[nodiscard]] int free_port();

}  // namespace ironbench::testing
