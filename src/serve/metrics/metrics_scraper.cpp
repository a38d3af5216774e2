#include "serve/metrics/metrics_scraper.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <memory>
#include <string_view>

#include "serve/metrics/engine_metric_names.hpp"

namespace ironbench::serve {
namespace {

// Where an answer's bytes go: its body, up to a bound.
struct answer_body {
  std::string text;
  std::size_t limit = 0;
  bool over = false;  ///< the answer passed the limit (the transfer was stopped)
};

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  auto* body = static_cast<answer_body*>(out);
  if (body->text.size() + size * count > body->limit) {
    body->over = true;
    return 0;  // stops the transfer (CURLE_WRITE_ERROR)
  }
  body->text.append(data, size * count);
  return size * count;
}

std::string bytes_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0) {
    return fmt::format("{} MiB", bytes >> 20);
  }
  return fmt::format("{} bytes", bytes);
}

bool kept(const prometheus_sample& sample) {
  const auto& n = sample.name;
  const auto ends_with = [&](const char* suffix) {
    const std::string s(suffix);
    return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
  };
  return !ends_with("_bucket") && !ends_with("_created");
}

// A _bucket sample of one of the stage histograms ttft_breakdown.hpp reads.
bool stage_bucket(const prometheus_sample& sample) {
  const auto& n = sample.name;
  constexpr std::string_view suffix = "_bucket";
  if (n.size() <= suffix.size() || n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  const auto base = std::string_view(n).substr(0, n.size() - suffix.size());
  const auto& table = engine_histogram_table();
  return std::any_of(table.begin(), table.end(), [&](const engine_histogram& h) { return base == h.series; });
}

// One URL's connection, kept alive from one scrape to the next.
class endpoint_client {
 public:
  endpoint_client(const std::string& url, const scrape_settings& s)
      : easy_(curl_easy_init(), &curl_easy_cleanup), error_{}, settings_(s) {
    body_.limit = s.max_answer_bytes;
    for (const auto& h : s.headers) headers_ = curl_slist_append(headers_, h.c_str());
    CURL* e = easy_.get();
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
    // A slow answer must not stop the next scrape for long: at most two intervals (and 1-10 s).
    const double limit_s = std::clamp(2 * s.interval_s, 1.0, 10.0);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(limit_s * 1000));
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_.data());
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &body_);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // gzip when the server offers it
    // An answer that declares more bytes than the bound is refused at its header, before any of
    // its body is read; one without a length is stopped by append() at the bound.
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(s.max_answer_bytes));
    if (headers_ != nullptr) curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers_);
    if (!s.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, s.ca_file.c_str());
    if (!s.verify_tls) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
  }
  endpoint_client(const endpoint_client&) = delete;
  endpoint_client& operator=(const endpoint_client&) = delete;
  ~endpoint_client() { curl_slist_free_all(headers_); }

  endpoint_scrape get() {
    endpoint_scrape out;
    if (!refused_.empty()) {  // an answer beyond the bounds came before: not asked again
      out.error = refused_;
      return out;
    }
    body_.text.clear();
    body_.over = false;
    error_[0] = '\0';
    const CURLcode code = curl_easy_perform(easy_.get());
    long status = 0;
    curl_easy_getinfo(easy_.get(), CURLINFO_RESPONSE_CODE, &status);
    if (body_.over || code == CURLE_FILESIZE_EXCEEDED) {
      body_.text = std::string();  // its memory back
      return refuse(fmt::format("the answer passed the {} one scrape may be", bytes_text(body_.limit)));
    }
    if (code != CURLE_OK) {
      out.error = error_[0] != '\0' ? std::string(error_.data()) : curl_easy_strerror(code);
      return out;
    }
    if (status != 200) {
      out.error = fmt::format("HTTP {}", status);
      return out;
    }
    auto parsed = parse_prometheus_text(body_.text, settings_.keep_series);
    if (body_.text.capacity() > (std::size_t{1} << 20)) body_.text = std::string();  // a large answer's memory back
    if (settings_.max_sample_lines > 0 && parsed.sample_lines > settings_.max_sample_lines) {
      return refuse(fmt::format("the answer holds {} series, more than the {} one scrape may hold", parsed.sample_lines,
                                settings_.max_sample_lines));
    }
    out.ok = true;
    out.rejected_lines = parsed.rejected_lines;
    out.first_problem = std::move(parsed.first_problem);
    if (settings_.keep_series) {
      out.samples = std::move(parsed.samples);
    } else {
      out.samples.reserve(parsed.samples.size());
      for (auto& sample : parsed.samples) {
        if (kept(sample)) {
          out.samples.push_back(std::move(sample));
        } else if (stage_bucket(sample)) {
          out.stage_buckets.push_back(std::move(sample));
        }
      }
    }
    if (settings_.refuse_answer) {
      if (auto why = settings_.refuse_answer(out); !why.empty()) return refuse(std::move(why));
    }
    return out;
  }

 private:
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> easy_;
  curl_slist* headers_ = nullptr;
  // Refuses this answer and every later one: a failed scrape saying why.
  endpoint_scrape refuse(std::string why) {
    refused_ = fmt::format("refused: {}; not scraped again during this point", why);
    endpoint_scrape out;
    out.error = refused_;
    return out;
  }

  std::array<char, CURL_ERROR_SIZE> error_;
  const scrape_settings& settings_;
  answer_body body_;
  std::string refused_;
};

// The origin (scheme://host:port) of a URL.
std::string origin_of(const std::string& url) {
  const auto start = url.find("://");
  return url.substr(0, url.find('/', start == std::string::npos ? 0 : start + 3));
}

}  // namespace

std::vector<std::string> scrape_headers(const std::vector<std::string>& urls, const std::vector<std::string>& base_urls,
                                        const std::vector<std::string>& headers) {
  for (const auto& url : urls) {
    const bool ours = std::any_of(base_urls.begin(), base_urls.end(),
                                  [&](const std::string& base) { return origin_of(base) == origin_of(url); });
    if (!ours) return {};
  }
  return headers;
}

std::int64_t monotonic_now_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

metrics_scraper::metrics_scraper(scrape_settings settings)
    : settings_(std::move(settings)), thread_([this] { loop(); }) {}

metrics_scraper::~metrics_scraper() {
  if (thread_.joinable()) (void)stop();
}

std::vector<scrape_round> metrics_scraper::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  return std::move(rounds_);
}

void metrics_scraper::loop() {
  std::vector<std::unique_ptr<endpoint_client>> clients;
  for (const auto& url : settings_.urls) clients.push_back(std::make_unique<endpoint_client>(url, settings_));
  const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(settings_.interval_s));
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    bool last = false;
    {
      std::unique_lock lock(mutex_);
      last = wake_.wait_until(lock, next, [this] { return stopping_; });
    }
    scrape_round round;
    for (auto& client : clients) round.endpoints.push_back(client->get());
    round.monotonic_ns = monotonic_now_ns();
    if (settings_.on_round) {
      settings_.on_round(std::move(round));
    } else {
      std::lock_guard lock(mutex_);
      rounds_.push_back(std::move(round));
    }
    if (last) return;
    // On the interval's grid; a round that overran starts the next at once, without catching up.
    next += interval;
    next = std::max(next, std::chrono::steady_clock::now());
  }
}

}  // namespace ironbench::serve
