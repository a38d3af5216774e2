#include "comm/progress_channel.hpp"

#include "comm/tcp_lines.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace ironbench::comm {

// Where one rank's beacon listens, as another rank reaches it (outside the anonymous
// namespace: progress_channel::state holds them).
struct beacon_address {
  int port = 0;         // 0: it has none
  std::string address;  // its end of its connection to rank 0 ("-": none)
  std::string machine;  // its real host name
};

namespace {

using clock_type = std::chrono::steady_clock;
using tcp::connect_to;
using tcp::listen_any;
using tcp::real_hostname;
using tcp::remaining_ms;
using tcp::send_all;
using tcp::socket_address;
constexpr auto connect_timeout = std::chrono::milliseconds(1500);
constexpr auto reply_timeout = std::chrono::milliseconds(5000);  // rank 0's monitor may be slow on a busy host
constexpr auto notice_timeout = std::chrono::milliseconds(200);  // "done" and "over" to a rank
constexpr auto keepalive = std::chrono::milliseconds(static_cast<int>(keepalive_period_s * 1000));
constexpr auto probe_timeout = std::chrono::milliseconds(400);  // a beacon that does not answer by then is gone
constexpr auto probe_budget = std::chrono::milliseconds(1500);  // naming the other dead ranks, at most
constexpr std::size_t probe_batch = 64;                         // beacons probed at once
constexpr std::size_t address_bytes = 1024;  // what rank 0 broadcasts: "PORT TOKEN HOST ADDR,ADDR,..."
constexpr std::size_t record_bytes = 256;    // what every rank shares: "REACHED PORT ADDR MACHINE HOST"

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
  return tcp::interface_addresses();
}

progress_message message_of(progress_message::kind what) {
  progress_message m;
  m.what = what;
  return m;
}

// Splits off the first space-separated word of `rest`.
std::string first_word(std::string_view& rest) {
  const auto end = std::min(rest.find(' '), rest.size());
  auto word = std::string(rest.substr(0, end));
  rest = end < rest.size() ? rest.substr(end + 1) : std::string_view();
  return word;
}

}  // namespace

struct progress_channel::state {
  int size = 1;
  std::string host;
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
  std::function<void()> event;
  std::vector<std::string> hosts;  // every rank's host, once connected
  // Rank 0: the listener, every rank's last report, when it was heard, its connection.
  int listener = -1;
  int port = 0;
  std::uint64_t token = 0;
  std::vector<rank_progress> ranks;
  std::vector<clock_type::time_point> heard;
  std::vector<int> fds;         // each rank's connection (its latest hello)
  std::vector<char> confirmed;  // whether that connection spoke after its hello
  bool over_sent = false;
  // Other ranks: the connection, the beacon, what to report next, what rank 0 did.
  int socket = -1;
  int beacon = -1;
  std::array<int, 2> waker{-1, -1};
  std::uint64_t operation = 0;
  std::string name;
  bool changed = false;
  rank0_link rank0 = rank0_link::connected;
  std::vector<beacon_address> beacons;
  std::string rank0_address = "-";  // rank 0's address as this rank reached it

  void monitor();
  void report();
  void take_line(int& rank, int fd, const std::string& line);
  bool lost(int rank);
  void fire();
  void poke();
  std::vector<int> probe_ranks(const std::vector<int>& ranks);
};

void progress_channel::state::fire() {
  std::function<void()> handler;
  {
    std::lock_guard lock(mutex);
    if (stopping) return;
    handler = event;
  }
  if (handler) handler();
}

void progress_channel::state::poke() {
  if (waker[1] < 0) return;
  const char byte = 1;
  (void)!::write(waker[1], &byte, 1);
}

progress_channel::progress_channel(int rank, int size, std::string host)
    : rank_(rank), state_(std::make_unique<state>()) {
  auto& s = *state_;
  s.size = size;
  s.host = std::move(host);
  if (rank_ != 0) return;
  s.ranks.resize(static_cast<std::size_t>(size));
  s.heard.assign(static_cast<std::size_t>(size), clock_type::now());
  s.fds.assign(static_cast<std::size_t>(size), -1);
  s.confirmed.assign(static_cast<std::size_t>(size), 0);
  for (int r = 0; r < size; ++r) {
    auto& p = s.ranks[static_cast<std::size_t>(r)];
    p.rank = r;
    p.state = r == 0 ? rank_progress::link::reporting : rank_progress::link::never_connected;
  }
  s.ranks.front().host = s.host;
  if (size < 2) return;
  std::random_device random;
  s.token = (static_cast<std::uint64_t>(random()) << 32) ^ random();
  s.listener = listen_any(std::min(size, 1024), s.port);
  if (s.listener < 0) {
    std::fputs(fmt::format("ironbench: warning: rank 0 cannot listen for progress reports ({}); a hang will not "
                           "name the ranks it waits for\n",
                           std::strerror(errno))
                   .c_str(),
               stderr);
    return;
  }
  s.thread = std::thread([&s] { s.monitor(); });
}

progress_channel::~progress_channel() {
  auto& s = *state_;
  {
    std::lock_guard lock(s.mutex);
    s.stopping = true;
  }
  s.wake.notify_all();
  s.poke();
  if (s.thread.joinable()) s.thread.join();
  if (s.socket >= 0) {
    if (s.rank0 == rank0_link::connected) {
      (void)send_all(s.socket, encode_progress(message_of(progress_message::kind::done)), keepalive);
    }
    ::shutdown(s.socket, SHUT_RDWR);
    ::close(s.socket);
  }
  for (const int fd : {s.listener, s.beacon, s.waker[0], s.waker[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void progress_channel::on_event(std::function<void()> handler) {
  std::lock_guard lock(state_->mutex);
  state_->event = std::move(handler);
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
  int beacon_port = 0;
  std::string my_address = "-";
  if (rank_ != 0) {
    std::string_view rest(blob.data());
    const auto port = std::atoi(first_word(rest).c_str());
    const auto token = std::strtoull(first_word(rest).c_str(), nullptr, 10);
    const auto host0 = first_word(rest);
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
      const int fd = connect_to(address, port, connect_timeout);
      if (fd < 0) continue;
      // The reply proves it is rank 0 of this job (another host's port may be open too).
      auto hello = message_of(progress_message::kind::hello);
      hello.token = token;
      hello.rank = rank_;
      hello.host = s.host;
      const auto reply = send_all(fd, encode_progress(hello), reply_timeout)
                             ? tcp::read_line(fd, reply_timeout, progress_line_limit)
                             : std::optional<std::string>();
      // A first line at once confirms the connection: only then does its close mean a death
      // (a rank that gave up waiting for the reply and tries another address is no death).
      if (reply && *reply == fmt::format("ok {}", token) &&
          send_all(fd, encode_progress(message_of(progress_message::kind::alive)), reply_timeout)) {
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
      my_address = socket_address(s.socket, false);
      s.rank0_address = socket_address(s.socket, true);
    }
    // The beacon: its port, and this end's address toward rank 0, reach every rank below.
    s.beacon = listen_any(SOMAXCONN, beacon_port);
    if (s.beacon < 0) beacon_port = 0;
    if (::pipe2(s.waker.data(), O_CLOEXEC | O_NONBLOCK) != 0) s.waker = {-1, -1};
    s.thread = std::thread([&s] { s.report(); });
  }
  // Every rank's host, beacon and whether it reached the monitor, on every rank.
  std::array<char, record_bytes> mine{};
  const auto text = fmt::format("{} {} {} {} {}", reached ? 1 : 0, beacon_port, my_address, real_hostname(), s.host);
  std::memcpy(mine.data(), text.data(), std::min(text.size(), mine.size() - 1));
  std::vector<char> all(record_bytes * static_cast<std::size_t>(s.size));
  world.all_gather_bytes(mine.data(), all.data(), record_bytes);
  std::vector<std::string> hosts(static_cast<std::size_t>(s.size));
  std::vector<beacon_address> beacons(static_cast<std::size_t>(s.size));
  std::vector<bool> reached_all(static_cast<std::size_t>(s.size), true);
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const char* record = all.data() + r * record_bytes;
    std::string_view rest(record, strnlen(record, record_bytes - 1));
    reached_all[r] = first_word(rest) == "1";
    beacons[r].port = std::atoi(first_word(rest).c_str());
    beacons[r].address = first_word(rest);
    beacons[r].machine = first_word(rest);
    hosts[r] = std::string(rest);
  }
  std::lock_guard lock(s.mutex);
  s.hosts = hosts;
  s.beacons = std::move(beacons);
  if (rank_ != 0) return;
  for (std::size_t r = 1; r < s.ranks.size(); ++r) {
    auto& p = s.ranks[r];
    if (p.host.empty()) p.host = hosts[r];
    if (!reached_all[r] || s.listener < 0) p.state = rank_progress::link::unmonitored;
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
  s.poke();
}

std::vector<rank_progress> progress_channel::snapshot() {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  auto ranks = s.ranks;
  const auto now = clock_type::now();
  for (std::size_t r = 1; r < ranks.size(); ++r) {
    if (ranks[r].state == rank_progress::link::reporting) {
      ranks[r].silent_s = std::chrono::duration<double>(now - s.heard[r]).count();
    }
  }
  return ranks;
}

hang_verdict progress_channel::verdict(hang_cause cause) { return judge_hang(snapshot(), cause); }

bool progress_channel::lost_a_rank() {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  return std::any_of(s.ranks.begin(), s.ranks.end(),
                     [](const auto& r) { return r.state == rank_progress::link::dropped; });
}

void progress_channel::end_job() {
  auto& s = *state_;
  std::lock_guard lock(s.mutex);
  s.over_sent = true;
  for (const int fd : s.fds) {
    if (fd >= 0) (void)send_all(fd, encode_progress(message_of(progress_message::kind::over)), notice_timeout);
  }
}

progress_channel::rank0_link progress_channel::rank0_state() {
  std::lock_guard lock(state_->mutex);
  return state_->rank0;
}

std::vector<int> progress_channel::state::probe_ranks(const std::vector<int>& wanted) {
  std::vector<std::pair<std::string, int>> targets;
  {
    std::lock_guard lock(mutex);
    const auto me = real_hostname();
    for (const int q : wanted) {
      const auto& b = beacons.at(static_cast<std::size_t>(q));
      std::string address = b.address;
      if (b.machine == me) {
        address = "127.0.0.1";
      } else if (address.rfind("127.", 0) == 0) {
        address = rank0_address;  // it reached rank 0 over loopback: it runs on rank 0's machine
      }
      targets.emplace_back(address, address == "-" ? 0 : b.port);
    }
  }
  return tcp::probe(targets, probe_timeout);
}

int progress_channel::lowest_rank_alive() {
  auto& s = *state_;
  for (int first = 1; first < rank_; first += static_cast<int>(probe_batch)) {
    std::vector<int> batch;
    for (int q = first; q < rank_ && batch.size() < probe_batch; ++q) batch.push_back(q);
    const auto alive = s.probe_ranks(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (alive[i] != 0) return batch[i];  // alive, or unknown: it may be the one that reports
    }
  }
  return rank_;
}

hang_verdict progress_channel::lost_rank0_verdict() {
  auto& s = *state_;
  std::vector<int> dead;
  const auto deadline = clock_type::now() + probe_budget;
  for (int first = 1; first < s.size && clock_type::now() < deadline; first += static_cast<int>(probe_batch)) {
    std::vector<int> batch;
    for (int q = first; q < s.size && batch.size() < probe_batch; ++q) {
      if (q != rank_) batch.push_back(q);
    }
    const auto alive = s.probe_ranks(batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (alive[i] == 0) dead.push_back(batch[i]);
    }
  }
  std::lock_guard lock(s.mutex);
  return judge_lost_monitor(rank_, s.operation, s.name, dead, s.hosts);
}

void progress_channel::wait_for_rank0(std::chrono::duration<double> grace) {
  auto& s = *state_;
  std::unique_lock lock(s.mutex);
  if (s.socket < 0) return;
  s.wake.wait_for(lock, grace, [&s] { return s.rank0 != rank0_link::connected; });
}

// Other ranks: sends what changed, or a keepalive each second, and listens to rank 0's end
// (its "done" or "over", or its close), until stopped; answers the beacon's callers.
void progress_channel::state::report() {
  auto next_keepalive = clock_type::now() + keepalive;
  std::string inbox;
  bool sending = socket >= 0;
  for (;;) {
    rank0_link link;
    {
      std::lock_guard lock(mutex);
      link = rank0;
    }
    const bool listening = socket >= 0 && link == rank0_link::connected;
    std::array<pollfd, 3> polled{pollfd{waker[0], POLLIN, 0}, pollfd{listening ? socket : -1, POLLIN, 0},
                                 pollfd{beacon, POLLIN, 0}};
    const int wait_ms = sending && listening ? std::max(0, remaining_ms(next_keepalive)) : 1000;
    if (::poll(polled.data(), polled.size(), wait_ms) < 0 && errno != EINTR) break;
    if ((polled[0].revents & POLLIN) != 0) {
      std::array<char, 64> sink{};
      while (::read(waker[0], sink.data(), sink.size()) > 0) {
      }
    }
    if ((polled[2].revents & POLLIN) != 0) {
      for (;;) {
        const int fd = ::accept4(beacon, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) break;
        ::close(fd);
      }
    }
    auto link_now = rank0_link::connected;
    if (listening && (polled[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      std::array<char, 256> chunk{};
      const auto n = ::recv(socket, chunk.data(), chunk.size(), MSG_DONTWAIT);
      const int error = errno;
      std::lock_guard lock(mutex);
      if (n > 0) {
        inbox.append(chunk.data(), static_cast<std::size_t>(n));
        for (auto end = inbox.find('\n'); end != std::string::npos; end = inbox.find('\n')) {
          const auto m = parse_progress(std::string_view(inbox).substr(0, end));
          inbox.erase(0, end + 1);
          if (m && m->what == progress_message::kind::done) rank0 = rank0_link::finished;
          if (m && m->what == progress_message::kind::over) rank0 = rank0_link::ended_job;
        }
        if (inbox.size() >= progress_line_limit) inbox.clear();
      } else if (n == 0 || (error != EAGAIN && error != EWOULDBLOCK && error != EINTR)) {
        rank0 = rank0_link::lost;
      }
      link_now = rank0;
    }
    if (link_now != rank0_link::connected) {
      wake.notify_all();
      if (link_now == rank0_link::lost || link_now == rank0_link::ended_job) fire();
    }
    std::string line;
    {
      std::lock_guard lock(mutex);
      if (stopping) break;
      if (!sending || rank0 != rank0_link::connected) continue;
      if (changed) {
        auto m = message_of(progress_message::kind::enter);
        m.operation = operation;
        m.name = name;
        line = encode_progress(m);
        changed = false;
      } else if (clock_type::now() >= next_keepalive) {
        line = encode_progress(message_of(progress_message::kind::alive));
      } else {
        continue;
      }
    }
    next_keepalive = clock_type::now() + keepalive;
    // A send that fails: rank 0 is gone (its close shows on the next poll) or stuck.
    if (!send_all(socket, line, keepalive)) sending = false;
  }
}

bool progress_channel::state::lost(int rank) {
  if (rank <= 0) return false;
  auto& p = ranks[static_cast<std::size_t>(rank)];
  if (p.state != rank_progress::link::reporting || stopping) return false;
  p.state = rank_progress::link::dropped;
  return true;
}

void progress_channel::state::take_line(int& rank, int fd, const std::string& line) {
  const auto m = parse_progress(line);
  if (rank < 0) {
    // Not one of ours, or a rank already connected and confirmed: close it. (An unconfirmed
    // connection of the same rank is one it gave up on: the new one replaces it.)
    if (!m || m->what != progress_message::kind::hello || m->token != token || m->rank <= 0 || m->rank >= size ||
        (ranks[static_cast<std::size_t>(m->rank)].state == rank_progress::link::reporting &&
         confirmed[static_cast<std::size_t>(m->rank)] != 0)) {
      rank = -2;
      return;
    }
    rank = m->rank;
    auto& p = ranks[static_cast<std::size_t>(rank)];
    p.state = rank_progress::link::reporting;
    if (!m->host.empty()) p.host = m->host;
    heard[static_cast<std::size_t>(rank)] = clock_type::now();
    fds[static_cast<std::size_t>(rank)] = fd;
    confirmed[static_cast<std::size_t>(rank)] = 0;
    (void)send_all(fd, fmt::format("ok {}\n", token), reply_timeout);
    return;
  }
  if (fds[static_cast<std::size_t>(rank)] != fd) return;  // a connection it gave up on
  heard[static_cast<std::size_t>(rank)] = clock_type::now();
  confirmed[static_cast<std::size_t>(rank)] = 1;
  if (!m) return;  // a line this version does not know: ignored
  auto& p = ranks[static_cast<std::size_t>(rank)];
  if (m->what == progress_message::kind::enter && m->operation > p.operation) {
    p.operation = m->operation;
    p.name = m->name;
  } else if (m->what == progress_message::kind::done) {
    p.state = rank_progress::link::finished;
  }
}

// Rank 0: accepts the other ranks and reads their reports until stopped; then says "done" to
// each (unless it said "over").
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
    bool dropped = false;
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
        if (!open && p.rank > 0 && fds[static_cast<std::size_t>(p.rank)] == p.fd) {
          const auto r = static_cast<std::size_t>(p.rank);
          fds[r] = -1;
          if (confirmed[r] != 0) {
            dropped = lost(p.rank) || dropped;
          } else if (ranks[r].state == rank_progress::link::reporting) {
            ranks[r].state = rank_progress::link::never_connected;  // it gave up before its first line
          }
        }
        if (!open) ::close(p.fd);
      }
      if (open) kept.push_back(std::move(p));
    }
    peers = std::move(kept);
    if (dropped) fire();
  }
  std::lock_guard lock(mutex);
  for (const auto& p : peers) {
    if (p.rank > 0 && fds[static_cast<std::size_t>(p.rank)] == p.fd) {
      if (!over_sent) (void)send_all(p.fd, encode_progress(message_of(progress_message::kind::done)), notice_timeout);
      fds[static_cast<std::size_t>(p.rank)] = -1;
    }
    ::close(p.fd);
  }
}

}  // namespace ironbench::comm
