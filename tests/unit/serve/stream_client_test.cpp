// The stream client's arrival times: bytes that wait in their socket while the client is busy
// are timed when they reached the host (the kernel's receive stamp), not when they were read.
#include "serve/client/stream_client.hpp"
#include "serve/client/receive_stamp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "timed_check.hpp"

namespace ironbench::serve {
namespace {

double monotonic_ns_now() {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void send_all(int socket, const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    const auto n = ::send(socket, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

// One chunked HTTP reply on loopback: its first chunk at once, its second when asked (the
// moment it was written is kept), then the end.
class two_chunk_server {
 public:
  two_chunk_server() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 1) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~two_chunk_server() {
    if (!released_) second_.set_value();
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  [[nodiscard]] int port() const { return port_; }
  void send_second() {
    released_ = true;
    second_.set_value();
  }
  [[nodiscard]] double second_written_ns() { return written_.get_future().get(); }

 private:
  void serve() {
    const int connection = ::accept(listener_, nullptr, nullptr);
    if (connection < 0) return;
    const int on = 1;
    ::setsockopt(connection, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    std::string request;
    char buffer[4096];
    while (request.find("\r\n\r\n") == std::string::npos) {
      const auto n = ::recv(connection, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      request.append(buffer, static_cast<std::size_t>(n));
    }
    send_all(connection,
             "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n");
    second_.get_future().wait();
    written_.set_value(monotonic_ns_now());
    send_all(connection, "6\r\nsecond\r\n0\r\n\r\n");
    // Wait for the client to close.
    while (::recv(connection, buffer, sizeof buffer, 0) > 0) {
    }
    ::close(connection);
  }

  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::promise<void> second_;
  std::promise<double> written_;
  bool released_ = false;
};

struct arrival {
  std::string bytes;
  double arrived_ns = 0;  // CLOCK_MONOTONIC
  double read_ns = 0;
};

// Reads the reply, holding off for `busy` (not reading) once the second chunk is on its way.
std::vector<arrival> fetch(bool kernel_stamps, std::chrono::milliseconds busy, double* second_written_ns) {
  two_chunk_server server;
  EXPECT_GT(server.port(), 0);
  stream_client client(kernel_stamps);
  std::vector<arrival> arrivals;
  bool done = false;
  http_request request;
  request.url = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  client.start(
      request,
      [&](std::string_view bytes, double arrived_s) {
        arrivals.push_back({std::string(bytes), client.monotonic_ns(arrived_s), monotonic_ns_now()});
        return true;
      },
      [&](const transfer_result& result) {
        EXPECT_TRUE(result.transport_ok) << result.error;
        done = true;
      });
  const double give_up = client.now() + 10;
  while (arrivals.empty() && client.now() < give_up) client.run_until(client.now() + 0.01, false);
  server.send_second();
  *second_written_ns = server.second_written_ns();
  std::this_thread::sleep_for(busy);  // the client is elsewhere; the chunk waits in its socket
  while (!done && client.now() < give_up) client.run_until(client.now() + 0.01, false);
  EXPECT_TRUE(done);
  return arrivals;
}

// Timed (docs/testing.md, "Tests that judge time"): the arrival stamp against the write.
TEST(StreamClientTimed, BytesThatWaitedInTheSocketAreTimedWhenTheyArrived) {
  // The kernel turns stamping on for the host a moment after the first socket asks for it:
  // one socket that asks, open for the whole test, and a pause make sure it is on.
  const int asking = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_TRUE(enable_receive_stamps(asking));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  double written_ns = 0;
  const auto arrivals = fetch(true, std::chrono::milliseconds(100), &written_ns);
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_EQ(arrivals[0].bytes, "first");
  EXPECT_EQ(arrivals[1].bytes, "second");
  // Read at least 100 ms after it was written, yet timed within a few ms of the write.
  EXPECT_GE(arrivals[1].read_ns - written_ns, 95e6);
  EXPECT_GE(arrivals[1].arrived_ns, written_ns - 1e6);
  testing::expect_time_not_above("arrival stamp after the write", (arrivals[1].arrived_ns - written_ns) * 1e-6, 0, 5);
  EXPECT_LE(arrivals[1].arrived_ns, arrivals[1].read_ns);
  ::close(asking);
}

TEST(StreamClient, WithoutKernelStampsBytesAreTimedWhenRead) {
  double written_ns = 0;
  const auto arrivals = fetch(false, std::chrono::milliseconds(100), &written_ns);
  ASSERT_EQ(arrivals.size(), 2u);
  EXPECT_GE(arrivals[1].arrived_ns - written_ns, 95e6);
}

}  // namespace
}  // namespace ironbench::serve
