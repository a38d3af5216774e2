// Kernel receive timestamps of TCP sockets: when bytes reached this host, however late the
// program reads them. The kernel stamps each arriving segment once asked (SO_TIMESTAMPNS;
// on a host where no socket asked before, stamping starts a moment later, so the very first
// segments may come unstamped); TCP merges segments that wait in a socket and keeps the
// newest stamp.
#pragma once

#include <optional>

namespace ironbench::serve {

/// Asks the kernel to stamp every segment `socket` receives; false when it refuses.
bool enable_receive_stamps(int socket);

/// How long ago, in seconds, the newest bytes waiting in `socket` reached this host, from a
/// one-byte peek that leaves them to be read; nothing when no bytes wait or they carry no
/// stamp.
[[nodiscard]] std::optional<double> receive_age_s(int socket);

}  // namespace ironbench::serve
