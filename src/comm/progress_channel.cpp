#include "comm/progress_channel.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace ironbench::comm {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr auto connect_timeout = std::chrono::milliseconds(1500);
constexpr auto reply_timeout = std::chrono::milliseconds(2000);
constexpr auto keepalive = std::chrono::milliseconds(1000);
constexpr std::size_t address_bytes = 1024;  // what rank 0 broadcasts: "PORT TOKEN HOST ADDR,ADDR,..."

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
std::optional<std::string> read_line(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  std::string line;
  while (line.size() < progress_line_limit) {
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

// Rank 0's addresses the others may reach: IRONBENCH_PROGRESS_ADDRESS, else every IPv4
// address of an interface that is up (not loopback; the others add loopback).
std::vector<std::string> own_addresses() {
  std::vector<std::string> addresses;
  if (const char* asked = std::getenv(progress_address_variable); asked != nullptr && *asked != '\0') {
    std::string text(asked);
    std::size_t start = 0;
    while (start <= text.size()) {
      const auto end = std::min(text.find(',', start), text.size());
      if (end > start) addresses.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return addresses;
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (auto* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    std::array<char, INET_ADDRSTRLEN> text{};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text.data(), text.size()) != nullptr) addresses.emplace_back(text.data());
  }
  freeifaddrs(list);
  return addresses;
}

std::string real_hostname() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "?";
  return name.data();
}

// Connects to `address`:`port` within connect_timeout; -1 when it cannot.
int connect_to(const std::string& address, int port) {
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
  if (::poll(&p, 1, static_cast<int>(connect_timeout.count())) <= 0 ||
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    ::close(fd);
    return -1;
  }
  const int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

progress_message message_of(progress_message::kind what) {
  progress_message m;
  m.what = what;
  return m;
}

}  // namespace

struct progress_channel::state {
  int size = 1;
  std::string host;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
  // Rank 0: the listener and every rank's last report.
  int listener = -1;
  int port = 0;
  std::uint64_t token = 0;
  std::vector<rank_progress> ranks;
  // Other ranks: the connection and what to report next.
  int socket = -1;
  std::uint64_t operation = 0;
  std::string name;
  bool changed = false;

  void monitor();
  void report();
  void take_line(int& rank, int fd, const std::string& line);
  void lost(int rank);
};

progress_channel::progress_channel(int rank, int size, std::string host)
    : rank_(rank), state_(std::make_unique<state>()) {
  auto& s = *state_;
  s.size = size;
  s.host = std::move(host);
  if (rank_ != 0) return;
  s.ranks.resize(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    auto& p = s.ranks[static_cast<std::size_t>(r)];
    p.rank = r;
    p.state = r == 0 ? rank_progress::link::reporting : rank_progress::link::never_connected;
  }
  s.ranks.front().host = s.host;
  if (size < 2) return;
  std::random_device random;
  s.token = (static_cast<std::uint64_t>(random()) << 32) ^ random();
  s.listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (s.listener < 0 || ::bind(s.listener, reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0 ||
      ::listen(s.listener, std::min(size, 1024)) != 0 ||
      getsockname(s.listener, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    std::fputs(fmt::format("ironbench: warning: rank 0 cannot listen for progress reports ({}); a hang will not "
                           "name the ranks it waits for\n",
                           std::strerror(errno))
                   .c_str(),
               stderr);
    if (s.listener >= 0) ::close(s.listener);
    s.listener = -1;
    return;
  }
  s.port = ntohs(any.sin_port);
  set_nonblocking(s.listener, true);
  s.thread = std::thread([&s] { s.monitor(); });
}

progress_channel::~progress_channel() {
  auto& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    s.stopping = true;
  }
  s.wake.notify_all();
  if (s.thread.joinable()) s.thread.join();
  if (s.socket >= 0) {
    (void)send_all(s.socket, encode_progress(message_of(progress_message::kind::done)), keepalive);
    ::shutdown(s.socket, SHUT_RDWR);
    ::close(s.socket);
  }
  if (s.listener >= 0) ::close(s.listener);
}

void progress_channel::connect(bootstrap& world) {
  auto& s = *state_;
  std::array<char, address_bytes> blob{};
  if (rank_ == 0 && s.listener >= 0) {
    std::string addresses;
    for (const auto& a : own_addresses()) addresses += (addresses.empty() ? "" : ",") + a;
    const auto text = fmt::format("{} {} {} {}", s.port, s.token, real_hostname(), addresses);
    std::memcpy(blob.data(), text.data(), std::min(text.size(), blob.size() - 1));
  }
  world.broadcast_bytes(blob.data(), blob.size());
  bool reached = true;
  if (rank_ != 0) {
    std::string_view rest(blob.data());
    const auto word = [&rest] {
      const auto end = std::min(rest.find(' '), rest.size());
      const auto w = std::string(rest.substr(0, end));
      rest = end < rest.size() ? rest.substr(end + 1) : std::string_view();
      return w;
    };
    const auto port = std::atoi(word().c_str());
    const auto token = std::strtoull(word().c_str(), nullptr, 10);
    const auto host0 = word();
    std::vector<std::string> candidates;
    std::string list(rest);
    for (std::size_t start = 0; start < list.size();) {
      const auto end = std::min(list.find(',', start), list.size());
      if (end > start) candidates.push_back(list.substr(start, end - start));
      start = end + 1;
    }
    const bool custom = std::getenv(progress_address_variable) != nullptr;
    if (!custom) {
      if (host0 == real_hostname()) {
        candidates.insert(candidates.begin(), "127.0.0.1");
      } else {
        candidates.emplace_back("127.0.0.1");
      }
    }
    reached = false;
    for (const auto& address : port > 0 ? candidates : std::vector<std::string>{}) {
      const int fd = connect_to(address, port);
      if (fd < 0) continue;
      // The reply proves it is rank 0 of this job (another host's port may be open too).
      auto hello = message_of(progress_message::kind::hello);
      hello.token = token;
      hello.rank = rank_;
      hello.host = s.host;
      const auto reply = send_all(fd, encode_progress(hello), reply_timeout) ? read_line(fd, reply_timeout)
                                                                             : std::optional<std::string>();
      if (reply && *reply == fmt::format("ok {}", token)) {
        s.socket = fd;
        reached = true;
        break;
      }
      ::close(fd);
    }
    if (!reached) {
      std::fputs(fmt::format("ironbench: warning: rank {} cannot reach rank 0's progress monitor (port {} on {}); "
                             "a hang will not say whether rank {} arrived (set {})\n",
                             rank_, port, list.empty() ? "no address" : list, rank_, progress_address_variable)
                     .c_str(),
                 stderr);
    } else {
      s.thread = std::thread([&s] { s.report(); });
    }
  }
  // Every rank's host and whether it reached the monitor, so that rank 0 names hosts.
  const auto all = world.gather(fmt::format("{} {}", reached ? 1 : 0, s.host));
  if (rank_ != 0) return;
  std::lock_guard lock(s.mutex);
  for (std::size_t r = 1; r < all.size() && r < s.ranks.size(); ++r) {
    auto& p = s.ranks[r];
    const auto& line = all[r];
    if (p.host.empty() && line.size() > 2) p.host = line.substr(2);
    if (line.rfind('0', 0) == 0 || s.listener < 0) p.state = rank_progress::link::unmonitored;
  }
}

void progress_channel::enter(const std::string& name) {
  auto& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    if (rank_ == 0) {
      auto& me = s.ranks.front();
      ++me.operation;
      me.name = name;
      return;
    }
    ++s.operation;
    s.name = name;
    s.changed = true;
  }
  s.wake.notify_all();
}

std::vector<rank_progress> progress_channel::snapshot() {
  std::lock_guard lock(state_->mutex);
  return state_->ranks;
}

hang_verdict progress_channel::verdict() { return judge_hang(snapshot()); }

void progress_channel::wait_for_rank0(std::chrono::duration<double> grace) {
  auto& s = *state_;
  if (s.socket < 0) return;
  const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(grace);
  for (;;) {
    pollfd p{s.socket, POLLIN, 0};
    const int left = remaining_ms(deadline);
    if (left == 0 || ::poll(&p, 1, left) <= 0) return;
    std::array<char, 256> sink{};
    const auto n = ::recv(s.socket, sink.data(), sink.size(), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
  }
}

// Other ranks: sends what changed, or a keepalive each second, until stopped or the peer is gone.
void progress_channel::state::report() {
  std::unique_lock lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, keepalive, [this] { return stopping || changed; });
    if (stopping) break;
    std::string line;
    if (changed) {
      auto m = message_of(progress_message::kind::enter);
      m.operation = operation;
      m.name = name;
      line = encode_progress(m);
      changed = false;
    } else {
      line = encode_progress(message_of(progress_message::kind::alive));
    }
    lock.unlock();
    const bool ok = send_all(socket, line, keepalive);
    lock.lock();
    if (!ok) return;  // rank 0 is gone or stuck: nothing more to report to
  }
}

void progress_channel::state::lost(int rank) {
  if (rank <= 0) return;
  auto& p = ranks[static_cast<std::size_t>(rank)];
  if (p.state != rank_progress::link::reporting || stopping) return;
  p.state = rank_progress::link::dropped;
  std::fputs(fmt::format("ironbench: rank {} (host {}) left the job (its progress channel closed) after entering "
                         "operation #{}{}\n",
                         rank, p.host.empty() ? "?" : p.host, p.operation, p.name.empty() ? "" : " (" + p.name + ")")
                 .c_str(),
             stderr);
}

void progress_channel::state::take_line(int& rank, int fd, const std::string& line) {
  const auto m = parse_progress(line);
  if (rank < 0) {
    if (!m || m->what != progress_message::kind::hello || m->token != token || m->rank <= 0 || m->rank >= size ||
        ranks[static_cast<std::size_t>(m->rank)].state == rank_progress::link::reporting) {
      rank = -2;  // not one of ours: close it
      return;
    }
    rank = m->rank;
    auto& p = ranks[static_cast<std::size_t>(rank)];
    p.state = rank_progress::link::reporting;
    if (!m->host.empty()) p.host = m->host;
    (void)send_all(fd, fmt::format("ok {}\n", token), reply_timeout);
    return;
  }
  if (!m) return;  // a line this version does not know: ignored
  auto& p = ranks[static_cast<std::size_t>(rank)];
  if (m->what == progress_message::kind::enter && m->operation > p.operation) {
    p.operation = m->operation;
    p.name = m->name;
  } else if (m->what == progress_message::kind::done) {
    p.state = rank_progress::link::finished;
  }
}

// Rank 0: accepts the other ranks and reads their reports until stopped.
void progress_channel::state::monitor() {
  struct peer {
    int fd;
    int rank = -1;  // -1 until its hello
    std::string buffer;
  };
  std::vector<peer> peers;
  for (;;) {
    {
      std::lock_guard lock(mutex);
      if (stopping) break;
    }
    std::vector<pollfd> polled{{listener, POLLIN, 0}};
    for (const auto& p : peers) polled.push_back({p.fd, POLLIN, 0});
    if (::poll(polled.data(), polled.size(), 200) < 0 && errno != EINTR) break;
    if ((polled.front().revents & POLLIN) != 0) {
      for (;;) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        peers.push_back({fd, -1, {}});
      }
    }
    std::vector<peer> kept;
    for (std::size_t i = 0; i < peers.size(); ++i) {
      auto& p = peers[i];
      const auto revents = i + 1 < polled.size() ? polled[i + 1].revents : 0;
      bool open = true;
      if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        std::array<char, 4096> chunk{};
        const auto n = ::recv(p.fd, chunk.data(), chunk.size(), MSG_DONTWAIT);
        if (n > 0) {
          p.buffer.append(chunk.data(), static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          open = false;
        }
        std::lock_guard lock(mutex);
        for (auto end = p.buffer.find('\n'); open && end != std::string::npos; end = p.buffer.find('\n')) {
          take_line(p.rank, p.fd, p.buffer.substr(0, end));
          p.buffer.erase(0, end + 1);
          if (p.rank == -2) open = false;
        }
        if (p.buffer.size() >= progress_line_limit) open = false;  // no newline within the limit
        if (!open && p.rank > 0) lost(p.rank);
      }
      if (open) {
        kept.push_back(std::move(p));
      } else {
        ::close(p.fd);
      }
    }
    peers = std::move(kept);
  }
  for (const auto& p : peers) ::close(p.fd);
}

}  // namespace ironbench::comm
