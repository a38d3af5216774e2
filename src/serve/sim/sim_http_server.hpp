// serve-sim's HTTP server inside: one libevent loop that takes requests (sim_request_intake.cpp),
// steps the engine and streams its tokens (sim_token_stream.cpp), and answers everything else
// (sim_replies.cpp). run_sim_server (sim_server.hpp) is its only user.
#pragma once

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "serve/sim/sim_images.hpp"
#include "serve/sim/sim_pooling.hpp"
#include "serve/sim/sim_request_body.hpp"
#include "serve/sim/sim_server.hpp"

namespace ironbench::serve {

/// Now on CLOCK_MONOTONIC, in ns: the times of --request-log, --state-log and the token stamps.
[[nodiscard]] std::int64_t sim_monotonic_now_ns();

/// A request being answered.
struct sim_active_request {
  evhttp_request* request = nullptr;
  evhttp_connection* connection = nullptr;
  bool stream = true;
  bool chat = false;
  bool include_usage = false;
  std::int64_t prompt_tokens = 0;
  std::int64_t max_tokens = 0;
  std::int64_t cached_tokens = 0;  ///< prompt tokens found in the prefix cache (sim_prefix_cache.hpp)
  std::string text;                ///< non-streaming replies collect it (streams send each token at once)
  std::string id;
  long long created = 0;
  sim_fault fault = sim_fault::none;
  bool stalled = false;
  std::size_t text_offset = 0;                      ///< the output's first word: from the prompt's identity
  std::int64_t arrived_ns = 0, first_token_ns = 0;  ///< CLOCK_MONOTONIC
  /// Embeddings, rerank, score: the request, answered whole at its first token.
  sim_pooling_request pooling;
  /// The request kind's truth in --request-log (",\"inputs\":8" ...).
  std::string log_extra;
  std::int64_t scheduled_ns = 0;      ///< the start of the step that admitted it
  int adapter = -1;                   ///< the LoRA adapter it names (-1: the base model)
  std::int64_t reasoning_tokens = 0;  ///< its first output tokens that are reasoning (sim_reasoning.hpp)
  std::string reasoning_text;         ///< non-streaming chat replies collect the reasoning fields' text
};

/// A completion, chat or pooling request as it came in, its body read.
struct sim_incoming {
  std::int64_t arrived_ns = 0;
  bool chat = false;
  sim_pooling_kind pooling = sim_pooling_kind::none;
  std::string body;  ///< the JSON text
  json parsed;
  sim_request_body request;
  sim_pooling_request pooled;  ///< pooling kinds
  sim_image_count images;      ///< chat
};

/// The server: bound and served by run().
class sim_http_server {
 public:
  explicit sim_http_server(const sim_server_settings& s);
  sim_http_server(const sim_http_server&) = delete;
  sim_http_server& operator=(const sim_http_server&) = delete;
  ~sim_http_server();

  /// Listens on the settings' host and port and serves until `stop` (see run_sim_server).
  void run(const std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

 private:
  using active_iterator = std::map<std::uint64_t, sim_active_request>::iterator;
  static constexpr ev_ssize_t max_headers_bytes = 64 * 1024;

  // The loop and its connections (sim_http_server.cpp).
  static timeval to_timeval(double seconds);
  static void on_accept_error(evconnlistener* listener, void*);
  static std::map<evconnlistener*, sim_http_server*>& listening();
  static sim_http_server* server_of(evconnlistener* listener);
  static std::mutex& listening_mutex();
  static void on_accept_resume(evutil_socket_t, short, void* self);
  static bufferevent* on_accepted(event_base* base, void* self);
  void set_idle_timeout(evhttp_connection* connection, bool answering) const;
  static void on_stop_check(evutil_socket_t, short, void* self);
  static void on_close(evhttp_connection* connection, void* self);
  static void on_request(evhttp_request* request, void* self);

  // A request taken in (sim_request_intake.cpp).
  void handle(evhttp_request* request);
  bool answer_get(evhttp_request* request, const std::string& path);
  std::string read_incoming(evhttp_request* request, sim_incoming& in) const;
  void admit(evhttp_request* request, sim_incoming& in);
  bool reply_fault(evhttp_request* request, std::uint64_t number, std::int64_t arrived_ns, sim_fault fault);
  sim_active_request active_request_of(evhttp_request* request, sim_incoming& in, std::uint64_t number, sim_fault fault,
                                       int adapter, const std::string& model, const std::string& model_field);
  void start_answer(evhttp_request* request, sim_active_request a, std::uint64_t number);

  // The engine's steps and the tokens they emit (sim_token_stream.cpp).
  void start_step();
  static void on_step(evutil_socket_t, short, void* self);
  static std::string choice_text(const sim_active_request& a, std::string_view word, bool first, bool finished,
                                 std::string_view field = "content");
  std::string chunk_text(const sim_active_request& a, std::string_view word, bool first, bool finished,
                         std::string_view field = "content") const;
  void send_event(evhttp_request* request, const std::string& data, bool flush = true);
  void flush_output(evhttp_connection* connection) const;
  void emit(const sim_emission& e);
  std::string token_word(const sim_active_request& a, std::int64_t index) const;
  static std::int64_t reported_completion_tokens(const sim_active_request& a);
  void usage_done(active_iterator it);

  // Whole replies and the logs (sim_replies.cpp).
  void reply_json(evhttp_request* request, int status, const char* reason, const json& body,
                  bool raw_invalid_bytes = false);
  void reply_error(evhttp_request* request, int status, const char* reason, const std::string& message);
  static void reply_html(evhttp_request* request);
  void reply_pooling(active_iterator it);
  void reply_metrics(evhttp_request* request);
  void reply_gpu_metrics(evhttp_request* request);
  void log_request(std::uint64_t number, const sim_active_request& a, const char* outcome);
  void log_line(std::uint64_t number, std::int64_t arrived_ns, std::int64_t first_token_ns, std::int64_t prompt_tokens,
                std::int64_t max_tokens, const char* outcome, std::int64_t scheduled_ns = 0,
                std::string_view extra = {});
  void log_state();

  sim_server_settings settings_;
  sim_counters counters_;
  std::ofstream state_log_;
  std::string json_model_;  // the model name as a JSON string
  sim_engine engine_;
  sim_prefix_cache prefix_cache_;
  event_base* base_ = nullptr;
  evhttp* http_ = nullptr;
  event* step_timer_ = nullptr;
  event* stop_timer_ = nullptr;
  event* accept_timer_ = nullptr;
  evconnlistener* listener_ = nullptr;
  bool accept_failing_ = false;
  timeval idle_timeout_{};
  const std::atomic<bool>* stop_ = nullptr;
  bool stepping_ = false;
  std::chrono::steady_clock::time_point planned_end_;
  std::vector<sim_emission> pending_;
  std::map<std::uint64_t, sim_active_request> active_;
  std::uint64_t requests_ = 0;
  std::ofstream request_log_;
  // Time 0 of the stand-in GPU exporter's energy counters, and the first completion request's arrival.
  std::int64_t started_ns_ = sim_monotonic_now_ns();
  std::int64_t first_request_ns_ = 0;
};

}  // namespace ironbench::serve
