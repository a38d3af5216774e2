// One load point being run (run_load in load_generator.hpp), one method per phase: the schedule
// prepared, the requests sent on it, each response received and recorded, the point drained at
// its end, and its result measured and judged.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/cpu_load.hpp"
#include "platform/sysfs_reader.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/client/pooling_reply.hpp"
#include "serve/client/send_queue.hpp"
#include "serve/client/sse_parser.hpp"
#include "serve/client/stream_client.hpp"

namespace ironbench::serve {

/// One request in flight: its parser, timing and what went wrong so far.
struct load_stream_state {
  std::size_t index = 0;    ///< into the records
  std::size_t request = 0;  ///< into this rank's requests
  std::size_t endpoint = 0;
  request_timing timing{0};
  std::unique_ptr<sse_parser> parser;
  std::string body;  ///< non-streaming responses, and error bodies
  std::string failure_class, failure;
  long status = 0;
  std::size_t response_bytes = 0;  ///< received so far
  bool oversized = false;          ///< more than max_response_bytes: the transfer was ended
  std::size_t events = 0;          ///< SSE events with data
  std::vector<double> delays_ms;   ///< receive - server send, per stamped token event
  double arrived_s = -1;           ///< when the bytes being parsed reached the host (client clock)
  double last_token_arrived_s = -1;
};

/// A point from its prepared requests to its load_result; used once.
class load_run {
 public:
  load_run(const std::vector<prepared_request>& all_requests, const load_settings& settings,
           const std::atomic<bool>* cancel);
  load_run(const load_run&) = delete;
  load_run& operator=(const load_run&) = delete;

  /// Prepares, sends, drains and finishes the point (run_load).
  [[nodiscard]] load_result run();

 private:
  // Prepare (load_run.cpp): this rank's requests and their schedule, and time 0.
  void prepare();
  [[nodiscard]] std::vector<double> full_schedule(std::size_t starters);
  void start_clocks();

  // Send (load_run.cpp): the loop, and each request handed to the client.
  void send_all();
  void send(std::size_t i);
  [[nodiscard]] std::size_t pick_endpoint();
  [[nodiscard]] request_record record_of(std::size_t i, double now, std::size_t endpoint, std::string& body) const;
  void start_transfer(const std::shared_ptr<load_stream_state>& st, std::string body);
  void on_event(load_stream_state& st, const sse_event& e);
  [[nodiscard]] bool on_bytes(load_stream_state& st, std::string_view bytes, double arrived_s) const;
  void on_done(const std::shared_ptr<load_stream_state>& st, const transfer_result& t);
  void look(double now);

  // Receive (load_run_receive.cpp): a finished transfer made into its record.
  void receive(load_stream_state& st, const transfer_result& t);
  void check_reply(load_stream_state& st, const transfer_result& t, request_record& r);
  void complete(load_stream_state& st, request_record& r);
  void keep_text(load_stream_state& st, request_record& r);

  // Drain and finish (load_run_finish.cpp): the point's end, its measures and its verdict.
  void drain();
  void finish();
  void judge_schedule(double wall);
  void summarize_timing();

  static double thread_cpu_seconds();
  static bool is_event_stream(const std::string& content_type);
  static std::string server_text_excerpt(std::string_view text, std::size_t limit);

  const std::vector<prepared_request>& all_requests_;
  const load_settings& s_;
  const std::atomic<bool>* cancel_;
  load_result result_;

  // The schedule: a trace's own times (from its first request, scaled), else the rate's.
  bool traced_ = false;
  bool schedule_capped_ = true;  // bounded by time: the prepared requests end before the duration's arrivals
  bool closed_loop_ = false;     // no rate, a concurrency limit: the first sends are a burst
  bool timed_ = false;           // bounded by time (--duration)
  std::vector<const prepared_request*> requests_;  // this rank's
  std::vector<double> schedule_;
  std::optional<send_queue> queue_;
  std::vector<std::string> answers_;

  // Sending.
  pooling_dimension embedding_dimension_;  // pooling kinds: every reply's vectors of one length
  std::vector<std::size_t> outstanding_;
  std::vector<double> lateness_ms_;
  std::size_t round_robin_ = 0, in_flight_ = 0, dropped_ = 0;
  double last_slot_freed_ = 0;
  double origin_ = 0;  // time 0 of the schedule, on the client's clock
  double cpu_start_ = 0, process_cpu_start_ = 0;
  const platform::sysfs_reader host_root_;
  std::optional<platform::cpu_times> host_cpu_before_;
  double first_send_ = -1, last_end_ = 0;
  bool any_finished_ = false;
  bool sending_ = true;

  // Receiving.
  std::vector<double> delivery_ms_, itl_error_ms_, socket_wait_ms_;
  std::size_t timed_together_ = 0, token_events_ = 0;
  std::size_t kept_text_bytes_ = 0;  // text kept in the records (--save-detailed), against kept_text_limit_
  std::size_t kept_text_limit_ = 0;
  // A point bounded by time: set when its grace period ends; the requests cancelled then are
  // unfinished, not failed.
  bool grace_over_ = false;
  std::vector<std::size_t> unfinished_records_;

  // A look at the point for a live line, every progress_interval_s.
  double next_look_ = 0, last_look_ = 0;
  std::size_t events_at_last_look_ = 0;

  // Last: destroyed first, while everything its transfers' callbacks refer to still exists.
  stream_client client_;
};

}  // namespace ironbench::serve
