// Kernel receive stamps on a loopback TCP connection.
#include "serve/client/receive_stamp.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "timed_check.hpp"

namespace ironbench::serve {
namespace {

// A connected pair of loopback TCP sockets: [0] the client's, [1] the server's.
struct tcp_pair {
  int ends[2] = {-1, -1};
  tcp_pair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(listener, 1) == 0 &&
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      ends[0] = ::socket(AF_INET, SOCK_STREAM, 0);
      if (::connect(ends[0], reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        ends[1] = ::accept(listener, nullptr, nullptr);
      }
    }
    ::close(listener);
  }
  ~tcp_pair() {
    for (const int e : ends) {
      if (e >= 0) ::close(e);
    }
  }
};

// Timed (docs/testing.md, "Tests that judge time"): the age read 60 ms after the send.
TEST(ReceiveStampTimed, BytesThatWaitedAreAsOldAsTheirArrival) {
  tcp_pair pair;
  ASSERT_GE(pair.ends[1], 0);
  ASSERT_TRUE(enable_receive_stamps(pair.ends[0]));
  EXPECT_FALSE(receive_age_s(pair.ends[0]).has_value());  // nothing waits yet
  // The kernel turns stamping on for the whole host a moment after the first socket asks
  // (deferred work): until then segments arrive unstamped. Wait for a stamped probe.
  bool stamped = false;
  for (int i = 0; i < 200 && !stamped; ++i) {
    ASSERT_EQ(::send(pair.ends[1], "p", 1, 0), 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stamped = receive_age_s(pair.ends[0]).has_value();
    char probe[256];
    ASSERT_GT(::recv(pair.ends[0], probe, sizeof probe, 0), 0);
  }
  ASSERT_TRUE(stamped) << "the kernel never stamped a received segment";
  ASSERT_EQ(::send(pair.ends[1], "token", 5, 0), 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const auto age = receive_age_s(pair.ends[0]);
  ASSERT_TRUE(age.has_value());
  EXPECT_GE(*age, 0.055);
  testing::expect_time_not_above("age of bytes read 60 ms after they were sent", *age * 1e3, 60, 940);
  // The peek left the bytes for the reader.
  char buffer[8] = {};
  EXPECT_EQ(::recv(pair.ends[0], buffer, sizeof buffer, 0), 5);
  EXPECT_EQ(std::string(buffer, 5), "token");
}

TEST(ReceiveStamp, NoStampWithoutAskingForIt) {
  tcp_pair pair;
  ASSERT_GE(pair.ends[1], 0);
  ASSERT_EQ(::send(pair.ends[1], "token", 5, 0), 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(receive_age_s(pair.ends[0]).has_value());
}

}  // namespace
}  // namespace ironbench::serve
