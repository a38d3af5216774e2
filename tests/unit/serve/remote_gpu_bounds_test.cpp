// --gpu-metrics-url against an exporter that answers too much: only the schema's series are
// parsed and kept, an answer beyond the bounds (bytes, series, GPUs) is refused in one line and
// its URL not asked again, a point of any length keeps a bounded number of energy samples per
// GPU, and an energy no GPU could draw is invalid with the reason (docs/reliability.md, "GPU
// exporters").
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "serve/metrics/gpu_exporter_metrics.hpp"
#include "serve/metrics/metrics_scraper.hpp"
#include "serve/metrics/prometheus_text.hpp"
#include "serve/metrics/remote_gpu_telemetry.hpp"

namespace ironbench::serve {
namespace {

// An HTTP server on loopback that answers every GET with one fixed body and closes the
// connection; it counts the requests. Without `declare_length` the answer has no
// Content-Length (its end is the connection's close).
class fixed_exporter {
 public:
  explicit fixed_exporter(std::string body, bool declare_length = true)
      : body_(std::move(body)), declare_length_(declare_length) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  fixed_exporter(const fixed_exporter&) = delete;
  fixed_exporter& operator=(const fixed_exporter&) = delete;
  ~fixed_exporter() {
    stopping_ = true;
    ::shutdown(listener_, SHUT_RDWR);
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  [[nodiscard]] std::string url() const { return fmt::format("http://127.0.0.1:{}/metrics", port_); }
  [[nodiscard]] int requests() const { return requests_; }

 private:
  void serve() {
    while (!stopping_) {
      const int connection = ::accept(listener_, nullptr, nullptr);
      if (connection < 0) return;
      std::string request;
      char buffer[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::recv(connection, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        request.append(buffer, static_cast<std::size_t>(n));
      }
      ++requests_;
      const auto length = declare_length_ ? fmt::format("Content-Length: {}\r\n", body_.size()) : std::string();
      const auto head =
          fmt::format("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n{}Connection: close\r\n\r\n", length);
      std::string reply = head + body_;
      std::size_t sent = 0;
      while (sent < reply.size()) {
        const auto n = ::send(connection, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
      }
      ::close(connection);
    }
  }

  std::string body_;
  bool declare_length_ = true;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// `gpus` DCGM GPUs at `watts`, each with its power, energy counter and utilisation.
std::string dcgm_answer(int gpus, double watts, double energy_mj = 1e6) {
  std::string text;
  for (int g = 0; g < gpus; ++g) {
    text += fmt::format("DCGM_FI_DEV_POWER_USAGE{{gpu=\"{}\",Hostname=\"h\"}} {}\n", g, watts);
    text += fmt::format("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{{gpu=\"{}\",Hostname=\"h\"}} {}\n", g, energy_mj);
    text += fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"{}\",Hostname=\"h\"}} 100\n", g);
  }
  return text;
}

// Scrapes `url` with the exporter settings for `rounds` rounds, 50 ms apart; the rounds as the
// history saw them, summarized over the first 0.1 s.
remote_gpu_telemetry scrape_exporter(const std::string& url, int rounds) {
  remote_gpu_history history({url}, 0.05);
  int taken = 0;
  scrape_settings settings;
  settings.urls = {url};
  settings.interval_s = 0.05;
  settings.on_round = [&](scrape_round&& round) {
    history.add(round);
    ++taken;
  };
  std::int64_t origin = monotonic_now_ns();
  {
    metrics_scraper scraper(gpu_exporter_scrape_settings(std::move(settings)));
    while (taken < rounds) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(scraper.stop().empty()) << "rounds go to on_round, none are kept";
  }
  return history.summarize(origin, 0.1, 100);
}

TEST(PrometheusTextFiltered, KeepsOnlyTheNamedSeriesAndCountsEveryLine) {
  const std::string text =
      "# TYPE a gauge\n# TYPE b gauge\na{x=\"1\"} 1\nb{x=\"1\"} 2\nb{x=\"2\"} 3\nc{broken 4\n\nb 5 6\n";
  const auto all = parse_prometheus_text(text);
  EXPECT_EQ(all.samples.size(), 4u);
  EXPECT_EQ(all.rejected_lines, 1u);
  const auto only_b = parse_prometheus_text(text, [](std::string_view name) { return name == "b"; });
  ASSERT_EQ(only_b.samples.size(), 3u);
  for (const auto& s : only_b.samples) EXPECT_EQ(s.name, "b");
  EXPECT_EQ(only_b.sample_lines, 5u) << "every sample line is counted, kept or not";
  EXPECT_EQ(only_b.rejected_lines, 0u) << "a broken line of a series not read is not read";
  EXPECT_EQ(only_b.types.size(), 1u);
  EXPECT_TRUE(is_gpu_exporter_series("DCGM_FI_DEV_POWER_USAGE"));
  EXPECT_TRUE(is_gpu_exporter_series("gpu_clock"));
  EXPECT_FALSE(is_gpu_exporter_series("DCGM_FI_DEV_XID_ERRORS"));
}

TEST(RemoteGpuBounds, AnAnswerOfTooManySeriesIsRefusedOnceAndItsUrlNotAskedAgain) {
  // 120 000 series of something else around one GPU: more than the 100 000 one scrape may hold.
  std::string text = dcgm_answer(1, 300);
  for (int i = 0; i < 120000; ++i) text += fmt::format("other_series{{i=\"{}\"}} 1\n", i);
  fixed_exporter exporter(text);
  const auto t = scrape_exporter(exporter.url(), 3);
  EXPECT_EQ(exporter.requests(), 1) << "a refused URL is not asked again";
  EXPECT_TRUE(t.summary.at("gpus").empty());
  const auto error = t.summary.at("error").get<std::string>();
  EXPECT_NE(error.find("refused: the answer holds 120003 series, more than the 100000 one scrape may hold"),
            std::string::npos)
      << error;
  EXPECT_EQ(t.summary.at("failed_scrapes").get<std::size_t>(), t.summary.at("scrapes").get<std::size_t>());
  const auto line = remote_gpu_text(t.summary);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_NE(line.find(exporter.url()), std::string::npos) << line;
}

// With and without a Content-Length: refused at the header, or stopped while reading.
TEST(RemoteGpuBounds, AnAnswerBeyondItsBytesIsRefused) {
  std::string text = dcgm_answer(1, 300);
  const std::string padding = "# " + std::string(1000, 'x') + "\n";
  while (text.size() <= exporter_limits::answer_bytes) text += padding;
  for (const bool declared : {true, false}) {
    SCOPED_TRACE(declared ? "Content-Length declared" : "no Content-Length");
    fixed_exporter exporter(text, declared);
    const auto t = scrape_exporter(exporter.url(), 2);
    EXPECT_EQ(exporter.requests(), 1);
    EXPECT_TRUE(t.summary.at("gpus").empty());
    EXPECT_NE(t.summary.at("error").get<std::string>().find("refused: the answer passed the 16 MiB one scrape may be"),
              std::string::npos)
        << t.summary.at("error");
  }
}

TEST(RemoteGpuBounds, AnAnswerWithoutALengthWithinItsBytesIsRead) {
  fixed_exporter exporter(dcgm_answer(2, 300), false);
  const auto t = scrape_exporter(exporter.url(), 2);
  EXPECT_EQ(t.summary.at("gpus").size(), 2U) << t.summary.dump();
}

TEST(RemoteGpuBounds, AnExporterOfThousandsOfGpusIsRefused) {
  fixed_exporter exporter(dcgm_answer(300, 300));
  const auto t = scrape_exporter(exporter.url(), 2);
  EXPECT_TRUE(t.summary.at("gpus").empty());
  EXPECT_NE(t.summary.at("error").get<std::string>().find("describes 300 GPUs, more than the 256 one exporter may"),
            std::string::npos)
      << t.summary.at("error");
  // Eight GPUs are read, their series only.
  fixed_exporter normal(dcgm_answer(8, 300) + "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",Hostname=\"h\"} 0\n");
  const auto n = scrape_exporter(normal.url(), 3);
  EXPECT_EQ(n.summary.at("gpus").size(), 8u);
  EXPECT_FALSE(n.summary.contains("error")) << n.summary.at("error");
}

// Rounds of one DCGM GPU at `watts`, `interval` s apart, its energy counter rising with it.
scrape_round constant_power_round(double t, double watts) {
  scrape_round r;
  r.monotonic_ns = static_cast<std::int64_t>(1e9 + t * 1e9);
  endpoint_scrape e;
  e.ok = true;
  e.samples = parse_prometheus_text(fmt::format("DCGM_FI_DEV_POWER_USAGE{{gpu=\"0\",Hostname=\"h\"}} {}\n"
                                                "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{{gpu=\"0\",Hostname=\"h\"}} {}\n",
                                                watts, watts * t * 1e3))
                  .samples;
  r.endpoints.push_back(std::move(e));
  return r;
}

TEST(RemoteGpuBounds, ALongPointKeepsABoundedSampleAndItsEnergy) {
  // 50 000 rounds (7 hours at 0.5 s): at most 4096 samples kept, the energy exact and valid.
  const double interval = 0.5;
  const int rounds = 50000;
  remote_gpu_history history({"http://h:9400/metrics"}, interval);
  for (int i = 0; i < rounds; ++i) history.add(constant_power_round(interval * i, 400));
  EXPECT_LE(history.kept_samples("h/0"), exporter_limits::samples_per_gpu);
  EXPECT_GE(history.kept_samples("h/0"), exporter_limits::samples_per_gpu / 2);
  const double duration = interval * (rounds - 1);
  const auto t = history.summarize(static_cast<std::int64_t>(1e9), duration, 1e6);
  const auto& s = t.summary;
  EXPECT_TRUE(s.at("energy_valid").get<bool>()) << s.dump();
  EXPECT_NEAR(s.at("energy_j").get<double>(), 400 * duration, 1e-6 * 400 * duration);
  EXPECT_DOUBLE_EQ(s.at("energy_coverage").get<double>(), 1);
  EXPECT_EQ(s.at("gpus").at("h/0").at("samples").get<int>(), rounds) << "the statistics see every round";
  EXPECT_DOUBLE_EQ(s.at("gpus").at("h/0").at("power_w_mean").get<double>(), 400);
}

TEST(RemoteGpuBounds, AnEnergyNoGpuDrawsIsInvalidWithTheReason) {
  // An energy counter rising by 3.3 MJ a second (a hostile exporter, or the wrong unit).
  remote_gpu_history history({"http://h:9400/metrics"}, 0.25);
  for (int i = 0; i < 10; ++i) {
    auto r = constant_power_round(-0.1 + 0.25 * i, 300);
    r.endpoints[0].samples =
        parse_prometheus_text(fmt::format("DCGM_FI_DEV_POWER_USAGE{{gpu=\"0\",Hostname=\"h\"}} 300\n"
                                          "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{{gpu=\"0\",Hostname=\"h\"}} {}\n",
                                          3.3e9 * (0.25 * i)))
            .samples;
    history.add(r);
  }
  const auto t = history.summarize(static_cast<std::int64_t>(1e9), 2.0, 1000);
  EXPECT_FALSE(t.summary.at("energy_valid").get<bool>());
  const auto reason = t.summary.at("energy_invalid_reason").get<std::string>();
  EXPECT_NE(reason.find("above the 5000 W no GPU draws"), std::string::npos) << reason;
  for (const auto& m : t.metrics) EXPECT_NE(m.name, "gpu_energy_j");
  EXPECT_NE(remote_gpu_text(t.summary).find("INVALID: GPU h/0: its energy counter gives"), std::string::npos)
      << remote_gpu_text(t.summary);
  // A power reading above it is refused the same way.
  remote_gpu_history power({"http://h:9400/metrics"}, 0.25);
  for (int i = 0; i < 10; ++i) power.add(constant_power_round(-0.1 + 0.25 * i, 9e6));
  const auto p = power.summarize(static_cast<std::int64_t>(1e9), 2.0, 1000);
  EXPECT_FALSE(p.summary.at("energy_valid").get<bool>());
  EXPECT_NE(p.summary.at("energy_invalid_reason").get<std::string>().find("no GPU draws"), std::string::npos);
}

}  // namespace
}  // namespace ironbench::serve
