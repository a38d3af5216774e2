#include "comm/tcp_lines.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>

namespace ironbench::comm::tcp {
namespace {

using clock_type = std::chrono::steady_clock;

std::string address_of(const sockaddr_in& in) {
  std::array<char, INET_ADDRSTRLEN> text{};
  return inet_ntop(AF_INET, &in.sin_addr, text.data(), text.size()) != nullptr ? text.data() : "-";
}

}  // namespace

int remaining_ms(clock_type::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
  return static_cast<int>(std::max<long long>(0, left));
}

void set_nonblocking(int fd, bool on) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

// Sends all of `text` within `timeout`; false when the peer is gone or too slow.
bool send_all(int fd, const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  std::size_t sent = 0;
  while (sent < text.size()) {
    const auto n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    pollfd p{fd, POLLOUT, 0};
    const int left = remaining_ms(deadline);
    if (left == 0 || ::poll(&p, 1, left) <= 0 || (p.revents & (POLLERR | POLLHUP)) != 0) return false;
  }
  return true;
}

// Reads one line (without its newline) within `timeout`; nullopt on timeout, close or a line
// past the limit.
std::optional<std::string> read_line(int fd, std::chrono::milliseconds timeout, std::size_t max_bytes) {
  const auto deadline = clock_type::now() + timeout;
  std::string line;
  while (line.size() < max_bytes) {
    pollfd p{fd, POLLIN, 0};
    const int left = remaining_ms(deadline);
    if (left == 0 || ::poll(&p, 1, left) <= 0) return std::nullopt;
    char c = 0;
    const auto n = ::recv(fd, &c, 1, MSG_DONTWAIT);
    if (n == 0) return std::nullopt;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return std::nullopt;
    }
    if (c == '\n') return line;
    line += c;
  }
  return std::nullopt;
}

std::vector<std::string> interface_addresses() {
  std::vector<std::string> addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (auto* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    if (auto text = address_of(*reinterpret_cast<const sockaddr_in*>(a->ifa_addr)); text != "-")
      addresses.push_back(std::move(text));
  }
  freeifaddrs(list);
  return addresses;
}

std::string real_hostname() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "?";
  return name.data();
}

// Connects to `address`:`port` within `timeout`; -1 when it cannot.
int connect_to(const std::string& address, int port, std::chrono::milliseconds timeout) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &to.sin_addr) != 1) return -1;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  set_nonblocking(fd, true);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t length = sizeof error;
  if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// This end's or the peer's IPv4 address of a connected socket ("-" when unknown).
std::string socket_address(int fd, bool peer) {
  sockaddr_in in{};
  socklen_t length = sizeof in;
  const int got = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&in), &length)
                       : getsockname(fd, reinterpret_cast<sockaddr*>(&in), &length);
  return got == 0 && in.sin_family == AF_INET ? address_of(in) : "-";
}

// A listening socket on an ephemeral port of every address; -1 when it cannot.
int listen_any(int backlog, int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (fd < 0 || ::bind(fd, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0 || ::listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  port = ntohs(any.sin_port);
  set_nonblocking(fd, true);
  return fd;
}

// Which of `targets` (address, port; port 0 for unknown) answer within `timeout`: 1 alive,
// 0 gone (refused, reset or silent), -1 unknown (no address).
std::vector<int> probe(const std::vector<std::pair<std::string, int>>& targets, std::chrono::milliseconds timeout) {
  std::vector<int> alive(targets.size(), -1);
  std::vector<int> fds(targets.size(), -1);
  std::vector<pollfd> polled;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(targets[i].second));
    if (targets[i].second <= 0 || inet_pton(AF_INET, targets[i].first.c_str(), &to.sin_addr) != 1) continue;
    alive[i] = 0;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      alive[i] = -1;
      continue;
    }
    fds[i] = fd;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) == 0) {
      alive[i] = 1;
    } else if (errno == EINPROGRESS) {
      polled.push_back({fd, POLLOUT, 0});
      which.push_back(i);
    }
  }
  const auto deadline = clock_type::now() + timeout;
  while (!polled.empty()) {
    const int left = remaining_ms(deadline);
    if (left == 0 || ::poll(polled.data(), polled.size(), left) <= 0) break;
    std::vector<pollfd> still;
    std::vector<std::size_t> still_which;
    for (std::size_t k = 0; k < polled.size(); ++k) {
      if (polled[k].revents == 0) {
        still.push_back({polled[k].fd, POLLOUT, 0});
        still_which.push_back(which[k]);
        continue;
      }
      int error = 0;
      socklen_t length = sizeof error;
      const bool ok = getsockopt(polled[k].fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0 &&
                      (polled[k].revents & (POLLERR | POLLHUP)) == 0;
      alive[which[k]] = ok ? 1 : 0;
    }
    polled = std::move(still);
    which = std::move(still_which);
  }
  for (const int fd : fds) {
    if (fd >= 0) ::close(fd);
  }
  return alive;
}

}  // namespace ironbench::comm::tcp
