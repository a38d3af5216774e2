// HTTP(S) requests with streamed responses, thousands at once from one thread: libcurl's multi
// interface driven by epoll (curl_multi_socket_action), so each event costs O(1) however many
// streams are open. Response bytes are handed over with the time they arrived: the kernel's
// receive timestamp of the newest bytes in the socket (SO_TIMESTAMPNS, read with a one-byte
// MSG_PEEK before libcurl reads them), so time the client spends on other streams before it
// reaches this one does not count. Where the kernel gives no stamp, the time the bytes are
// handed over is used instead.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::serve {

struct http_request {
  std::string url;
  std::string body;                  ///< POSTed when not empty
  std::vector<std::string> headers;  ///< "Name: value"
  double timeout_s = 0;              ///< whole request (0: none)
  double stall_timeout_s = 0;        ///< no byte received for this long ends it (0: none)
  std::string ca_file;               ///< https: CA certificates to verify the server with (empty: the system's)
  bool verify_tls = true;            ///< https: false accepts any certificate
};

/// How a transfer ended.
struct transfer_result {
  bool transport_ok = false;  ///< libcurl finished without error
  long http_status = 0;
  std::string error;         ///< libcurl's message when !transport_ok
  std::string error_class;   ///< connect, tls, timeout, stalled, truncated, transport (empty when ok)
  std::string content_type;  ///< the response's Content-Type header (empty when it had none)
  double end_s = 0;
};

class stream_client {
 public:
  /// `arrived_s`: when the bytes reached this host (client clock), at most now(). Returns
  /// false to end the transfer at once (its connection is dropped; on_done then gets
  /// error_class "aborted").
  using data_callback = std::function<bool(std::string_view bytes, double arrived_s)>;
  using done_callback = std::function<void(const transfer_result& result)>;

  /// `kernel_receive_stamps` false: bytes are timed when libcurl hands them over.
  explicit stream_client(bool kernel_receive_stamps = true);
  stream_client(const stream_client&) = delete;
  stream_client& operator=(const stream_client&) = delete;
  ~stream_client();

  /// Seconds on the client's monotonic clock (0 at construction).
  [[nodiscard]] double now() const;

  /// A time on the client's clock as CLOCK_MONOTONIC nanoseconds.
  [[nodiscard]] double monotonic_ns(double client_s) const;

  /// Response bytes handed over so far, and how many of them carried a kernel receive stamp.
  struct stamp_counts {
    std::size_t deliveries = 0, kernel_stamped = 0;
  };
  [[nodiscard]] stamp_counts receive_stamps() const;

  /// Starts a request now; `on_data` gets the response body as it arrives, `on_done` once.
  void start(const http_request& request, data_callback on_data, done_callback on_done);

  /// Handles network events until `until_s` on the client's clock, or until a transfer
  /// finishes (its slot may be reused at once), or when nothing is in flight and
  /// `return_when_idle`.
  void run_until(double until_s, bool return_when_idle);

  /// Ends every transfer in flight now (each gets on_done with error_class "cancelled").
  void cancel_all();

  [[nodiscard]] std::size_t in_flight() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace ironbench::serve
