// Lines of text over TCP with deadlines, for the progress channel (progress_channel.hpp):
// non-blocking sockets bounded by poll(2), so that a peer that is gone or silent costs at most
// the given timeout and never blocks a rank.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ironbench::comm::tcp {

/// Milliseconds left until `deadline` (0 once it has passed).
int remaining_ms(std::chrono::steady_clock::time_point deadline);

/// Sets or clears O_NONBLOCK on `fd`.
void set_nonblocking(int fd, bool on);

/// Sends all of `text` within `timeout`; false when the peer is gone or too slow.
bool send_all(int fd, const std::string& text, std::chrono::milliseconds timeout);

/// Reads one line (without its newline) within `timeout`; nullopt on timeout, close or a line
/// of `max_bytes` or more.
std::optional<std::string> read_line(int fd, std::chrono::milliseconds timeout, std::size_t max_bytes);

/// Every IPv4 address of an interface that is up, loopback left out.
std::vector<std::string> interface_addresses();

/// This machine's host name ("?" when it has none).
std::string real_hostname();

/// Connects to IPv4 `address`:`port` within `timeout`, with TCP_NODELAY; -1 when it cannot.
int connect_to(const std::string& address, int port, std::chrono::milliseconds timeout);

/// This end's (`peer` false) or the peer's IPv4 address of a connected socket ("-" when unknown).
std::string socket_address(int fd, bool peer);

/// A non-blocking listening socket on an ephemeral port of every address, its port in `port`;
/// -1 when it cannot.
int listen_any(int backlog, int& port);

/// Which of `targets` (IPv4 address, port; port 0 for unknown) accept a connection within
/// `timeout`, all probed at once: 1 alive, 0 gone (refused, reset or silent), -1 unknown (no
/// address).
std::vector<int> probe(const std::vector<std::pair<std::string, int>>& targets, std::chrono::milliseconds timeout);

}  // namespace ironbench::comm::tcp
