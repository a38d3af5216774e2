#include "experiment/port_check.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

namespace ironbench::experiment {
namespace {

struct address {
  std::string host, port;
};

std::optional<address> address_of(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return std::nullopt;
  const auto scheme = url.substr(0, scheme_end);
  auto authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  address a{authority, scheme == "https" ? "443" : "80"};
  if (!authority.empty() && authority.front() == '[') {  // [::1]:8000
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    a.host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] == ':') a.port = authority.substr(close + 2);
  } else if (const auto colon = authority.rfind(':'); colon != std::string::npos) {
    a.host = authority.substr(0, colon);
    a.port = authority.substr(colon + 1);
  }
  if (a.host.empty() || a.port.empty()) return std::nullopt;
  return a;
}

bool connects(const addrinfo& ai, double timeout_s) {
  const int fd = socket(ai.ai_family, ai.ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return false;
  bool ok = false;
  if (connect(fd, ai.ai_addr, ai.ai_addrlen) == 0) {
    ok = true;
  } else if (errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, static_cast<int>(timeout_s * 1000)) == 1) {
      int error = 0;
      socklen_t length = sizeof error;
      ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
    }
  }
  close(fd);
  return ok;
}

}  // namespace

std::optional<std::string> address_in_use(const std::string& url, double timeout_s) {
  const auto a = address_of(url);
  if (!a) return std::nullopt;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(a->host.c_str(), a->port.c_str(), &hints, &found) != 0) return std::nullopt;
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, freeaddrinfo);
  for (const auto* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (connects(*ai, timeout_s)) return a->host + ":" + a->port;
  }
  return std::nullopt;
}

}  // namespace ironbench::experiment
