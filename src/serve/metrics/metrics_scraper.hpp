// Scrapes inference servers' Prometheus /metrics on a thread of its own while a load point
// runs: every interval, one GET per URL (kept-alive connections, libcurl), each answer parsed
// and kept with the moment it arrived. A server without /metrics costs one failed GET per
// interval and is reported, never fatal to the point.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/metrics/prometheus_text.hpp"

namespace ironbench::serve {

/// One URL's answer at one scrape.
struct endpoint_scrape {
  bool ok = false;
  std::string error;                       ///< why not ok: "HTTP 404", "Connection refused" ...
  std::vector<prometheus_sample> samples;  ///< histogram buckets and _created series left out
  /// The _bucket samples of the stage histograms (engine_histogram_table), kept apart
  std::vector<prometheus_sample> stage_buckets;
  std::size_t rejected_lines = 0;
  std::string first_problem;
};

/// Every URL's answer at one scrape.
struct scrape_round {
  std::int64_t monotonic_ns = 0;           ///< CLOCK_MONOTONIC when the last answer of the round arrived
  std::vector<endpoint_scrape> endpoints;  ///< in the order of the URLs
};

struct scrape_settings {
  std::vector<std::string> urls;  ///< http(s)://host:port/metrics
  double interval_s = 1;
  std::vector<std::string> headers;  ///< sent with every GET ("Authorization: Bearer ...")
  std::string ca_file;
  bool verify_tls = true;
  /// The bounds of one answer (after decompression): its bytes and its sample lines (0: any).
  /// An answer beyond either is refused: that scrape fails with a one-line error saying which
  /// bound, and the URL is not asked again for the scraper's life (its later scrapes fail with
  /// the same error, without a request). An answer whose Content-Length passes the bytes is
  /// refused at its header, without reading its body.
  std::size_t max_answer_bytes = std::size_t{64} << 20;
  std::size_t max_sample_lines = 0;
  /// When set, only the samples whose metric name it accepts are parsed and kept (the other
  /// lines are counted, not stored); otherwise every sample but histogram buckets (those of the
  /// stage histograms kept apart) and _created series.
  std::function<bool(std::string_view)> keep_series;
  /// When set, checks each answer once parsed: a non-empty text refuses it as the bounds above do.
  std::function<std::string(const endpoint_scrape&)> refuse_answer;
  /// When set, each round is handed to it (on the scraper's thread, in time order) instead of
  /// kept, and stop() returns no rounds: what the consumer keeps is all the memory rounds take.
  std::function<void(scrape_round&&)> on_round;
};

/// Scrapes from construction (the first round at once) until stop().
class metrics_scraper {
 public:
  explicit metrics_scraper(scrape_settings settings);
  metrics_scraper(const metrics_scraper&) = delete;
  metrics_scraper& operator=(const metrics_scraper&) = delete;
  ~metrics_scraper();

  /// Takes one last round, stops and returns every round, in time order.
  [[nodiscard]] std::vector<scrape_round> stop();

 private:
  void loop();

  scrape_settings settings_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<scrape_round> rounds_;
  std::thread thread_;
};

/// The headers to send with the /metrics GETs: `headers` (an API key among them) only when
/// every metrics URL has the scheme, host and port of one of `base_urls`; none otherwise, so a
/// --metrics-url on another server never sees the key.
[[nodiscard]] std::vector<std::string> scrape_headers(const std::vector<std::string>& urls,
                                                      const std::vector<std::string>& base_urls,
                                                      const std::vector<std::string>& headers);

/// CLOCK_MONOTONIC now, in nanoseconds (the clock serve-sim stamps and logs with).
[[nodiscard]] std::int64_t monotonic_now_ns();

}  // namespace ironbench::serve
