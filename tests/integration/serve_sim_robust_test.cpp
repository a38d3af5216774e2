// ironbench serve-sim against hostile clients: wrongly typed fields, bodies of any size,
// connections left idle and a descriptor limit reached. The server answers each with an HTTP
// error or a pause, and keeps serving.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "http_get.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "timed_check.hpp"

namespace ironbench::testing {
namespace {

// A connected loopback socket, closed when it goes.
class client_socket {
 public:
  explicit client_socket(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  client_socket(const client_socket&) = delete;
  client_socket& operator=(const client_socket&) = delete;
  ~client_socket() { close(fd_); }
  [[nodiscard]] bool connected() const { return connected_; }

  // Sends `bytes`; false when the server closed (or reset) the connection first.
  bool send_all(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // What arrives within `seconds`, or until the server closes; `closed` says which.
  std::string receive(double seconds, bool* closed = nullptr) {
    std::string got;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    if (closed != nullptr) *closed = false;
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      char buffer[65536];
      const auto n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        if (closed != nullptr) *closed = true;
        break;
      }
      got.append(buffer, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  int fd_;
  bool connected_ = false;
};

std::string post(const std::string& path, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The answer to one request on a connection of its own (the server closes it after).
std::string exchange(int port, const std::string& request) {
  client_socket c(port);
  if (!c.connected() || !c.send_all(request)) return "";
  return c.receive(10);
}

TEST(ServeSimRobust, AWronglyTypedFieldIsA400NamingItAndTheServerGoesOn) {
  sim_process sim({"--decode-base-ms", "1"});
  ASSERT_GT(sim.port(), 0);
  const std::vector<std::pair<std::string, std::string>> fields = {
      {R"("max_tokens":3,"stream":1)", "stream must be true or false"},
      {R"("max_tokens":"3")", "max_tokens must be an integer"},
      {R"("max_tokens":null)", "max_tokens must be an integer"},
      {R"("max_tokens":3,"stream":true,"stream_options":{"include_usage":"yes"})", "stream_options.include_usage"},
  };
  for (const std::string path : {"/v1/completions", "/v1/chat/completions"}) {
    const std::string prompt =
        path == "/v1/completions" ? R"("prompt":"x",)" : R"("messages":[{"role":"user","content":"x"}],)";
    for (const auto& [field, message] : fields) {
      const auto answer = exchange(sim.port(), post(path, "{" + prompt + field + "}"));
      EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << path << " " << field << ": " << answer;
      EXPECT_NE(answer.find(message), std::string::npos) << path << " " << field << ": " << answer;
    }
    const auto good = exchange(sim.port(), post(path, "{" + prompt + R"("max_tokens":3})"));
    EXPECT_EQ(good.rfind("HTTP/1.1 200", 0), 0u) << path << ": " << good;
  }
  EXPECT_TRUE(http_get(sim.port(), "/health").has_value());
}

TEST(ServeSimRobust, ABodyOverTheLimitIs413AndNotKept) {
  sim_process sim({"--max-body-bytes", "1M"});
  ASSERT_GT(sim.port(), 0);
  // Announced larger than the limit: refused before any of it is read.
  {
    client_socket c(sim.port());
    ASSERT_TRUE(c.connected());
    c.send_all(
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Content-Length: 800000000\r\n\r\n{\"prompt\":\"");
    const auto answer = c.receive(5);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  }
  // Sent in chunks without a length: refused once past the limit.
  {
    client_socket c(sim.port());
    ASSERT_TRUE(c.connected());
    std::string request =
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    const std::string chunk(65536, 'x');
    for (int i = 0; i < 40; ++i) request += "10000\r\n" + chunk + "\r\n";
    c.send_all(request);  // the server may close before it has all
    const auto answer = c.receive(5);
    EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer.substr(0, 200);
  }
  // Under the limit a body is served.
  const std::string words(500000, 'a');
  const auto good = exchange(sim.port(), post("/v1/completions", R"({"prompt":")" + words + R"(","max_tokens":2})"));
  EXPECT_EQ(good.rfind("HTTP/1.1 200", 0), 0u) << good.substr(0, 200);
}

// Timed: the idle connection's close is timed against the 1 s idle timeout.
TEST(ServeSimRobustTimed, AnIdleConnectionIsClosedAndAnAnsweredOneIsNot) {
  sim_process sim({"--idle-timeout", "1s", "--fault", "stall", "--fault-every", "2", "--decode-base-ms", "1"});
  ASSERT_GT(sim.port(), 0);
  client_socket idle(sim.port());
  ASSERT_TRUE(idle.connected());
  bool closed = false;
  const auto start = std::chrono::steady_clock::now();
  (void)idle.receive(5, &closed);
  EXPECT_TRUE(closed) << "an idle connection stays open";
  expect_time_not_above("an idle connection's close after the 1 s idle timeout",
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1, 3, "s");
  // A kept-alive connection is idle again after its answer.
  client_socket kept(sim.port());
  ASSERT_TRUE(kept.connected());
  const std::string body = R"({"prompt":"x","max_tokens":2})";
  ASSERT_TRUE(kept.send_all("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body));
  const auto answer = kept.receive(3, &closed);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_TRUE(closed) << "closed after its answer, once idle";
  // The second request stalls after its first token: still being answered, it is not idle.
  client_socket stalled(sim.port());
  ASSERT_TRUE(stalled.connected());
  ASSERT_TRUE(stalled.send_all(post("/v1/completions", R"({"prompt":"x","max_tokens":4,"stream":true})")));
  const auto events = stalled.receive(2.5, &closed);
  EXPECT_FALSE(closed) << events;
  EXPECT_NE(events.find("data: "), std::string::npos) << events;
}

// CPU seconds `pid` has used (user + system).
double cpu_seconds(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

TEST(ServeSimRobust, OutOfDescriptorsItPausesWithOneLineAndServesAgain) {
  // Under UBSan, libstdc++'s filebuf trips its vptr check once descriptors run out and the
  // server stops (-fno-sanitize-recover): the release build runs this test.
  if (IRONBENCH_SANITIZED_BUILD) {
    GTEST_SKIP() << "a sanitized build: out of descriptors, serve-sim trips UBSan's vptr check in libstdc++'s "
                    "filebuf and stops (not yet explained); the release build runs this test";
  }
  // 40 descriptors in all (soft and hard): serve-sim cannot raise it, and 80 clients exceed it.
  const auto process = start_program(
      "sh", {"-c", "ulimit -n 40 && exec \"$0\" serve-sim --port 0 --idle-timeout 0", ironbench_binary()});
  const int port = announced_port(process, std::regex(R"(http://127\.0\.0\.1:(\d+)/v1)"));
  ASSERT_GT(port, 0) << read_file(process.err_path);
  {
    std::vector<std::unique_ptr<client_socket>> clients;
    for (int i = 0; i < 80; ++i) clients.push_back(std::make_unique<client_socket>(port));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const double before = cpu_seconds(process.pid);
    std::this_thread::sleep_for(std::chrono::seconds(2));
    const double used = cpu_seconds(process.pid) - before;
    EXPECT_LT(used, 0.5) << "spinning on accept()";
    const auto err = read_file(process.err_path);
    EXPECT_EQ(lines_of(err).size(), 1u) << err.substr(0, 2000);
    EXPECT_NE(err.find("accept() failed (Too many open files)"), std::string::npos) << err.substr(0, 2000);
  }
  // The clients gone, it accepts again.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    served = http_get(port, "/health").has_value();
    if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(served);
  kill(process.pid, SIGINT);
  const auto r = wait_for(process);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace ironbench::testing
