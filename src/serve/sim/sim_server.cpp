#include "serve/sim/sim_server.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "serve/common/prompt_identity.hpp"
#include "serve/common/text_units.hpp"
#include "serve/sim/sim_images.hpp"
#include "serve/sim/sim_metrics.hpp"
#include "serve/sim/sim_pooling.hpp"
#include "serve/sim/sim_prefix_cache.hpp"
#include "serve/sim/sim_request_body.hpp"

namespace ironbench::serve {
namespace {

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct active_request {
  evhttp_request* request = nullptr;
  evhttp_connection* connection = nullptr;
  bool stream = true;
  bool chat = false;
  bool include_usage = false;
  std::int64_t prompt_tokens = 0;
  std::int64_t max_tokens = 0;
  std::int64_t cached_tokens = 0;  // prompt tokens found in the prefix cache (sim_prefix_cache.hpp)
  std::string text;                // non-streaming replies collect it (streams send each token at once)
  std::string id;
  long long created = 0;
  sim_fault fault = sim_fault::none;
  bool stalled = false;
  std::size_t text_offset = 0;                      // the output's first word: from the prompt's identity
  std::int64_t arrived_ns = 0, first_token_ns = 0;  // CLOCK_MONOTONIC
  // Embeddings, rerank, score: the request, answered whole at its first token.
  sim_pooling_request pooling;
  // The request kind's truth in --request-log (",\"inputs\":8" ...).
  std::string log_extra;
  std::int64_t scheduled_ns = 0;      // the start of the step that admitted it
  int adapter = -1;                   // the LoRA adapter it names (-1: the base model)
  std::int64_t reasoning_tokens = 0;  // its first output tokens that are reasoning (sim_reasoning.hpp)
  std::string reasoning_text;         // non-streaming chat replies collect the reasoning fields' text
};

std::int64_t monotonic_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class sim_server {
 public:
  explicit sim_server(const sim_server_settings& s)
      : settings_(s), json_model_(core::json_text(json(s.model))), engine_(s.engine), prefix_cache_(s.prefix_cache) {
    // First, so that a log that cannot be written leaves nothing of libevent's behind.
    if (!s.request_log.empty()) {
      request_log_.open(s.request_log);
      if (!request_log_) throw error(fmt::format("serve-sim: cannot write the request log {}", s.request_log));
    }
    if (!s.state_log.empty()) {
      state_log_.open(s.state_log);
      if (!state_log_) throw error(fmt::format("serve-sim: cannot write the state log {}", s.state_log));
      log_state();
    }
    event_config* config = event_config_new();
    event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER);
    base_ = event_base_new_with_config(config);
    event_config_free(config);
    if (base_ == nullptr) throw error("serve-sim: cannot create the event loop");
    http_ = evhttp_new(base_);
    evhttp_set_allowed_methods(http_, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
    evhttp_set_gencb(http_, &sim_server::on_request, this);
    evhttp_set_bevcb(http_, &sim_server::on_accepted, this);
    if (s.max_body_bytes > 0) evhttp_set_max_body_size(http_, static_cast<ev_ssize_t>(s.max_body_bytes));
    evhttp_set_max_headers_size(http_, max_headers_bytes);
    if (s.idle_timeout_s > 0) {
      idle_timeout_ = to_timeval(s.idle_timeout_s);
      evhttp_set_timeout_tv(http_, &idle_timeout_);
    }
    accept_timer_ = evtimer_new(base_, &sim_server::on_accept_resume, this);
    step_timer_ = evtimer_new(base_, &sim_server::on_step, this);
    stop_timer_ = event_new(base_, -1, EV_PERSIST, &sim_server::on_stop_check, this);
  }
  sim_server(const sim_server&) = delete;
  sim_server& operator=(const sim_server&) = delete;
  ~sim_server() {
    if (listener_ != nullptr) {
      const std::lock_guard lock(listening_mutex());
      listening().erase(listener_);
    }
    event_free(accept_timer_);
    event_free(stop_timer_);
    event_free(step_timer_);
    evhttp_free(http_);
    event_base_free(base_);
  }

  void run(const std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
    auto* bound =
        evhttp_bind_socket_with_handle(http_, settings_.host.c_str(), static_cast<ev_uint16_t>(settings_.port));
    if (bound == nullptr) {
      throw error(fmt::format("serve-sim: cannot listen on {}:{} (in use, or not an address of this host)",
                              settings_.host, settings_.port));
    }
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    getsockname(evhttp_bound_socket_get_fd(bound), reinterpret_cast<sockaddr*>(&address), &length);
    const int port = address.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port)
                                                   : ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
    listener_ = evhttp_bound_socket_get_listener(bound);
    {
      const std::lock_guard lock(listening_mutex());
      listening()[listener_] = this;
    }
    evconnlistener_set_error_cb(listener_, &sim_server::on_accept_error);
    stop_ = &stop;
    timeval period{0, 50000};
    event_add(stop_timer_, &period);
    if (on_listening) on_listening(port);
    event_base_dispatch(base_);
  }

 private:
  static constexpr ev_ssize_t max_headers_bytes = 64 * 1024;

  static timeval to_timeval(double seconds) {
    const auto micros = static_cast<long long>(seconds * 1e6);
    return {static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
  }

  // accept() failed for a reason libevent does not retry (EMFILE, ENFILE, ENOBUFS, ENOMEM):
  // the listening socket stays readable, so accepting again at once would spin. Accepting
  // pauses for 100 ms instead (the pending connections wait in the backlog), with one line on
  // stderr for the whole shortage: the next accepted connection ends it.
  static void on_accept_error(evconnlistener* listener, void*) {
    auto* s = server_of(listener);
    if (s == nullptr) return;
    const int code = EVUTIL_SOCKET_ERROR();
    evconnlistener_disable(listener);
    if (!s->accept_failing_) {
      s->accept_failing_ = true;
      std::fprintf(stderr, "serve-sim: accept() failed (%s): new connections wait, accepting again every 100 ms\n",
                   std::strerror(code));
      std::fflush(stderr);
    }
    timeval pause{0, 100000};
    evtimer_add(s->accept_timer_, &pause);
  }

  // The server listening with `listener` (whose callback argument is evhttp's, not ours).
  static std::map<evconnlistener*, sim_server*>& listening() {
    static std::map<evconnlistener*, sim_server*> servers;
    return servers;
  }
  static sim_server* server_of(evconnlistener* listener) {
    const std::lock_guard lock(listening_mutex());
    const auto it = listening().find(listener);
    return it == listening().end() ? nullptr : it->second;
  }
  static std::mutex& listening_mutex() {
    static std::mutex mutex;
    return mutex;
  }

  static void on_accept_resume(evutil_socket_t, short, void* self) {
    evconnlistener_enable(static_cast<sim_server*>(self)->listener_);
  }

  // Every accepted connection's buffer, made as evhttp makes it; a connection accepted ends a
  // shortage of descriptors.
  static bufferevent* on_accepted(event_base* base, void* self) {
    static_cast<sim_server*>(self)->accept_failing_ = false;
    return bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
  }

  // A connection whose request is being answered is not idle, however long its stream (or a
  // stall) lasts: its timeouts are off until the answer's end, then idle again.
  void set_idle_timeout(evhttp_connection* connection, bool answering) const {
    if (connection == nullptr || !evutil_timerisset(&idle_timeout_)) return;
    if (auto* channel = evhttp_connection_get_bufferevent(connection)) {
      bufferevent_set_timeouts(channel, answering ? nullptr : &idle_timeout_, answering ? nullptr : &idle_timeout_);
    }
  }

  static void on_stop_check(evutil_socket_t, short, void* self) {
    auto* s = static_cast<sim_server*>(self);
    if (s->request_log_.is_open()) s->request_log_.flush();  // readable while it runs
    if (s->state_log_.is_open()) s->state_log_.flush();
    if (s->stop_->load()) event_base_loopbreak(s->base_);
  }

  static void on_close(evhttp_connection* connection, void* self) {
    auto* s = static_cast<sim_server*>(self);
    for (auto it = s->active_.begin(); it != s->active_.end(); ++it) {
      if (it->second.connection == connection) {
        s->engine_.cancel(it->first);
        s->log_state();
        s->log_request(it->first, it->second, "client closed");
        s->active_.erase(it);
        return;
      }
    }
  }

  static void on_request(evhttp_request* request, void* self) { static_cast<sim_server*>(self)->handle(request); }

  // `raw_invalid_bytes`: the body's invalid UTF-8 is sent as the byte 0xFF (the invalid-utf8
  // fault) instead of U+FFFD.
  void reply_json(evhttp_request* request, int status, const char* reason, const json& body,
                  bool raw_invalid_bytes = false) {
    evkeyvalq* headers = evhttp_request_get_output_headers(request);
    evhttp_add_header(headers, "Content-Type", "application/json");
    evbuffer* out = evbuffer_new();
    auto text = core::json_text(body);
    if (raw_invalid_bytes) {
      static constexpr std::string_view replacement = "\xEF\xBF\xBD";
      for (auto at = text.find(replacement); at != std::string::npos; at = text.find(replacement, at + 1)) {
        text.replace(at, replacement.size(), "\xFF");
      }
    }
    evbuffer_add(out, text.data(), text.size());
    evhttp_send_reply(request, status, reason, out);
    evbuffer_free(out);
  }

  void reply_error(evhttp_request* request, int status, const char* reason, const std::string& message) {
    reply_json(request, status, reason, {{"error", {{"message", message}, {"type", reason}, {"code", status}}}});
  }

  void handle(evhttp_request* request) {
    const auto arrived_ns = monotonic_now_ns();
    // Send every token event at once: with Nagle's algorithm a small chunk waits for the
    // client's (delayed, up to 40 ms) acknowledgement of the previous one.
    if (auto* connection = evhttp_request_get_connection(request)) {
      if (auto* bev = evhttp_connection_get_bufferevent(connection)) {
        const int one = 1;
        setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
    }
    const std::string path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(request));
    const auto method = evhttp_request_get_command(request);
    if (method == EVHTTP_REQ_GET && path == "/health") return reply_json(request, 200, "OK", json::object());
    if (method == EVHTTP_REQ_GET && path == "/metrics") return reply_metrics(request);
    if (method == EVHTTP_REQ_GET && path == "/gpu-metrics" && !settings_.gpu_exporter.kind.empty()) {
      return reply_gpu_metrics(request);
    }
    if (method == EVHTTP_REQ_GET && path == "/v1/models") {
      auto models = json::array({{{"id", settings_.model}, {"object", "model"}, {"owned_by", "ironbench-sim"}}});
      for (const auto& adapter : settings_.adapters) {  // as vLLM lists its LoRA modules
        models.push_back(
            {{"id", adapter.name}, {"object", "model"}, {"owned_by", "ironbench-sim"}, {"parent", settings_.model}});
      }
      return reply_json(request, 200, "OK", {{"object", "list"}, {"data", models}});
    }
    const bool chat = path == "/v1/chat/completions";
    const auto pooling = sim_pooling_route(path);
    if (method != EVHTTP_REQ_POST || (!chat && pooling == sim_pooling_kind::none && path != "/v1/completions")) {
      return reply_error(request, 404, "Not Found", "no route " + path);
    }
    evbuffer* input = evhttp_request_get_input_buffer(request);
    const auto size = evbuffer_get_length(input);
    std::string body(size, '\0');
    evbuffer_copyout(input, body.data(), size);
    const auto j = json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return reply_error(request, 400, "Bad Request", "the body is not JSON");
    const auto reading = read_sim_body(j);
    if (!reading.error.empty()) return reply_error(request, 400, "Bad Request", reading.error);
    sim_pooling_request pooled;
    if (pooling != sim_pooling_kind::none) {
      pooled = read_sim_pooling_request(pooling, j);
      if (!pooled.error.empty()) return reply_error(request, 400, "Bad Request", pooled.error);
    }
    const auto images = chat ? count_sim_images(j) : sim_image_count{};
    if (!images.error.empty()) return reply_error(request, 400, "Bad Request", images.error);

    const auto number = ++requests_;
    if (first_request_ns_ == 0) first_request_ns_ = arrived_ns;
    // The model named: the base model, a LoRA adapter, or vLLM's 404 for any other.
    const auto& model = reading.request.model.empty() ? settings_.model : reading.request.model;
    const auto model_field = fmt::format(R"(,"model":{})", core::json_text(json(model)));
    const auto adapter = sim_model_index(reading.request.model, settings_.model, settings_.adapters);
    if (!adapter) {
      log_line(number, arrived_ns, 0, 0, 0, "http 404", 0, model_field);
      return reply_json(request, 404, "Not Found", sim_unknown_model_error(reading.request.model));
    }
    sim_fault fault = sim_fault::none;
    if (settings_.fault_every > 0 && number % static_cast<std::uint64_t>(settings_.fault_every) == 0)
      fault = settings_.fault;
    if (fault == sim_fault::http_429) {
      log_line(number, arrived_ns, 0, 0, 0, "http 429");
      return reply_error(request, 429, "Too Many Requests", "simulated rate limit");
    }
    if (fault == sim_fault::http_500) {
      log_line(number, arrived_ns, 0, 0, 0, "http 500");
      return reply_error(request, 500, "Internal Server Error", "simulated failure");
    }
    if (fault == sim_fault::html_200) {
      log_line(number, arrived_ns, 0, 0, 0, "html 200");
      return reply_html(request);
    }

    active_request a;
    a.request = request;
    a.connection = evhttp_request_get_connection(request);
    a.chat = chat;
    a.stream = reading.request.stream;
    a.include_usage = reading.request.include_usage;
    a.prompt_tokens = sim_prompt_tokens(body) + images.text_words + images.tokens;
    a.max_tokens = reading.request.max_tokens;
    a.text_offset = static_cast<std::size_t>(prompt_hash_value(j).value_or(0) % std::size(one_token_words));
    if (images.images > 0) {
      a.log_extra = fmt::format(R"(,"images":{},"image_tokens":{},"text_tokens":{})", images.images, images.tokens,
                                a.prompt_tokens - images.tokens);
    }
    if (pooling != sim_pooling_kind::none) {
      // One prefill of its tokens: the reply leaves with what would be its first token.
      a.prompt_tokens = pooled.prompt_tokens;
      a.max_tokens = 1;
      a.stream = false;
      a.log_extra = fmt::format(R"(,"inputs":{})", pooled.inputs.size());
      a.pooling = std::move(pooled);
    }
    a.adapter = *adapter;
    a.log_extra += model_field;
    if (pooling == sim_pooling_kind::none && prefix_cache_.enabled()) {
      // Looked up on arrival: a prompt whose blocks arrived before within the window (docs/serving-metrics.md,
      // serve-sim).
      const auto now_s = static_cast<double>(arrived_ns) * 1e-9;
      const auto salt = std::hash<std::string>{}(model);
      a.cached_tokens =
          std::min(a.prompt_tokens, prefix_cache_.lookup_and_insert(sim_prompt_token_ids(j), salt, now_s));
      a.log_extra += fmt::format(R"(,"cached_tokens":{})", a.cached_tokens);
    }
    if (pooling == sim_pooling_kind::none && settings_.reasoning.tokens > 0) {
      a.reasoning_tokens = sim_reasoning_tokens(settings_.reasoning, a.max_tokens);
      a.log_extra += fmt::format(R"(,"reasoning_tokens":{})", a.reasoning_tokens);
    }
    a.id = fmt::format("{}-{}", chat ? "chatcmpl" : "cmpl", number);
    a.created = static_cast<long long>(unix_seconds());
    a.fault = fault;
    a.arrived_ns = arrived_ns;
    if (!engine_.submit({number, a.prompt_tokens, a.max_tokens, a.adapter, a.cached_tokens})) {
      return reply_error(request, 400, "Bad Request",
                         fmt::format("prompt ({}) + max_tokens ({}) exceed the KV cache ({} tokens)", a.prompt_tokens,
                                     a.max_tokens, settings_.engine.kv_cache_tokens));
    }
    evhttp_connection_set_closecb(a.connection, &sim_server::on_close, this);
    set_idle_timeout(a.connection, true);
    if (a.stream) {
      evkeyvalq* headers = evhttp_request_get_output_headers(request);
      evhttp_add_header(headers, "Content-Type", "text/event-stream");
      evhttp_add_header(headers, "Cache-Control", "no-cache");
      evhttp_send_reply_start(request, 200, "OK");
    }
    active_.emplace(number, std::move(a));
    log_state();
    if (!stepping_) start_step();
  }

  // Steps follow each other on the planned timeline (a step starts when the previous one was
  // planned to end), so the timer's own latency does not accumulate into the step times.
  void start_step() {
    auto step = engine_.next_step();
    log_state();
    const auto now = std::chrono::steady_clock::now();
    if (!step) {
      stepping_ = false;
      return;
    }
    const auto duration = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(step->duration_s));
    // Continue from the planned end unless the loop fell a whole step behind.
    const auto begin = stepping_ && now - planned_end_ < duration ? planned_end_ : now;
    stepping_ = true;
    planned_end_ = begin + duration;
    pending_ = std::move(step->emissions);
    // The requests admitted in this step (their first token ends it) were scheduled at its start.
    const auto begin_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(begin.time_since_epoch()).count();
    for (const auto& e : pending_) {
      if (e.token_index != 0) continue;
      // (A request that arrived after the planned start, while the timer was late, at its arrival.)
      if (const auto it = active_.find(e.id); it != active_.end()) {
        it->second.scheduled_ns = std::max(begin_ns, it->second.arrived_ns);
      }
    }
    const auto micros =
        std::max<long long>(0, std::chrono::duration_cast<std::chrono::microseconds>(planned_end_ - now).count());
    timeval wait{static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
    evtimer_add(step_timer_, &wait);
  }

  static void on_step(evutil_socket_t, short, void* self) {
    auto* s = static_cast<sim_server*>(self);
    for (const auto& e : s->pending_) s->emit(e);
    s->pending_.clear();
    s->start_step();
  }

  // One token event, formatted directly: this runs once per token of every stream (a JSON
  // tree per token was the simulator's largest cost at thousands of streams). The id, model
  // and word need no escaping beyond what json_model_ holds.
  // `field`: the delta's field of a chat token (content, or reasoning_content / reasoning).
  static std::string choice_text(const active_request& a, std::string_view word, bool first, bool finished,
                                 std::string_view field = "content") {
    const char* reason = finished ? "\"length\"" : "null";
    return a.chat ? fmt::format(R"({{"index":0,"finish_reason":{},"delta":{{"{}":"{}"{}}}}})", reason, field, word,
                                first ? R"(,"role":"assistant")" : "")
                  : fmt::format(R"({{"index":0,"finish_reason":{},"text":"{}","logprobs":null}})", reason, word);
  }

  std::string chunk_text(const active_request& a, std::string_view word, bool first, bool finished,
                         std::string_view field = "content") const {
    const auto sent_ns = monotonic_now_ns();
    const std::string choice = choice_text(a, word, first, finished, field);
    // ironbench_sim_sent_ns: ground truth for clients on this host (CLOCK_MONOTONIC).
    return fmt::format(
        R"({{"id":"{}","object":"{}","created":{},"model":{},"choices":[{}],"ironbench_sim_sent_ns":{}}})", a.id,
        a.chat ? "chat.completion.chunk" : "text_completion", a.created, json_model_, choice, sent_ns);
  }

  // Queues one SSE event on the reply; `flush`: hands it to the kernel at once.
  void send_event(evhttp_request* request, const std::string& data, bool flush = true) {
    evbuffer* out = evbuffer_new();
    evbuffer_add(out, "data: ", 6);
    evbuffer_add(out, data.data(), data.size());
    evbuffer_add(out, "\n\n", 2);
    evhttp_send_reply_chunk(request, out);
    evbuffer_free(out);
    if (flush) flush_output(evhttp_request_get_connection(request));
  }

  // Writes what the connection has queued now, not when the event loop next gets round to it
  // (after every other event of the step): the ground-truth stamp in an event is then within
  // microseconds of its socket write. The front of a bufferevent's output is frozen against
  // draining by anyone but libevent, so it is unfrozen around the write as libevent's own
  // write callback does; that callback still runs (it finishes a reply once its last chunk
  // is out). What the socket does not take stays queued for libevent, in order.
  void flush_output(evhttp_connection* connection) const {
    if (connection == nullptr || !settings_.write_each_event) return;
    bufferevent* channel = evhttp_connection_get_bufferevent(connection);
    evbuffer* output = bufferevent_get_output(channel);
    evbuffer_unfreeze(output, 1);
    evbuffer_write(output, bufferevent_getfd(channel));
    evbuffer_freeze(output, 1);
  }

  void emit(const sim_emission& e) {
    const auto it = active_.find(e.id);
    if (it == active_.end()) return;  // the client went away
    auto& a = it->second;
    if (a.first_token_ns == 0) {
      a.first_token_ns = monotonic_now_ns();
      counters_.prompt_tokens += a.prompt_tokens;
      counters_.prefix_queries += a.prompt_tokens;
      counters_.prefix_hits += a.cached_tokens;
    }
    if (a.pooling.kind != sim_pooling_kind::none) return reply_pooling(it);
    ++counters_.generation_tokens;
    const auto token =
        sim_token(settings_.reasoning, a.reasoning_tokens, e.token_index, token_word(a, e.token_index), a.chat);
    const std::string& word = token.text;
    if (a.stream && !a.stalled) {
      if (a.fault == sim_fault::malformed && e.token_index == 1) {
        send_event(a.request, "{\"choices\": [ {\"text\": \"cut");
      } else if (a.fault == sim_fault::invalid_utf8 && e.token_index == 1) {
        // A short chunk: the raw byte within the first bytes, where a client quoting the event
        // in an error message would copy it.
        send_event(a.request,
                   fmt::format(R"({{"choices":[{}]}})", choice_text(a, word, false, e.finished, token.field)),
                   !e.finished);
      } else {
        // A stream's last token leaves in one write with its usage, [DONE] and the reply's end.
        send_event(a.request, chunk_text(a, word, e.token_index == 0, e.finished, token.field), !e.finished);
      }
      if (a.fault == sim_fault::truncate && e.token_index == 1) {
        evhttp_connection* connection = a.connection;
        engine_.cancel(e.id);
        log_request(e.id, a, "truncated");
        active_.erase(it);
        evhttp_connection_free(connection);  // closes the socket mid-stream
        return;
      }
      if (a.fault == sim_fault::end_early && e.token_index == 1 && !e.finished) {
        engine_.cancel(e.id);
        evhttp_connection_set_closecb(a.connection, nullptr, nullptr);
        set_idle_timeout(a.connection, false);
        evhttp_send_reply_end(a.request);  // a well-formed end of the reply, with no end of the answer
        log_request(e.id, a, "ended early");
        active_.erase(it);
        return;
      }
      if (a.fault == sim_fault::stall && e.token_index == 0) a.stalled = true;
    }
    if (!a.stream) (token.field == "content" ? a.text : a.reasoning_text) += word;
    if (!e.finished) return;
    if (a.stalled) return;  // never finishes: the client's timeout must end it
    usage_done(it);
  }

  // The text of token `index`: a one-token word (the words in turn, from one the prompt's
  // identity picks), or what the request's fault puts in its second event (a raw 0xFF byte,
  // which no JSON string may hold; --fault-bytes of text), or a wrong word.
  std::string token_word(const active_request& a, std::int64_t index) const {
    std::string word = one_token_words[(a.text_offset + static_cast<std::size_t>(index)) % std::size(one_token_words)];
    if (a.fault == sim_fault::wrong_output && index == settings_.fault_token) return "~" + word.substr(1);
    if (index != 1) return word;
    if (a.fault == sim_fault::invalid_utf8) return word + "\xFF";
    if (a.fault == sim_fault::huge_chunk) return std::string(static_cast<std::size_t>(settings_.fault_bytes), 'x');
    return word;
  }

  // A proxy's error page with status 200 (what a misconfigured gateway sends).
  static void reply_html(evhttp_request* request) {
    static constexpr std::string_view page =
        "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
        "<body><h1>Bad Gateway</h1><p>The upstream server is not answering.</p></body></html>\n";
    evhttp_add_header(evhttp_request_get_output_headers(request), "Content-Type", "text/html; charset=utf-8");
    evbuffer* out = evbuffer_new();
    evbuffer_add(out, page.data(), page.size());
    evhttp_send_reply(request, 200, "OK", out);
    evbuffer_free(out);
  }

  // What the usage says the answer's length was: the truth, or a lie of the request's fault.
  static std::int64_t reported_completion_tokens(const active_request& a) {
    if (a.fault == sim_fault::usage_negative) return -5;
    if (a.fault == sim_fault::usage_huge) return 1'000'000'000'000'000'000;
    return a.max_tokens;
  }

  void usage_done(std::map<std::uint64_t, active_request>::iterator it) {
    auto& a = it->second;
    const auto completion_tokens = reported_completion_tokens(a);
    set_idle_timeout(a.connection, false);  // before the reply's end, which may free the connection
    json usage = {{"prompt_tokens", a.prompt_tokens},
                  {"completion_tokens", completion_tokens},
                  {"total_tokens", a.prompt_tokens + completion_tokens}};
    if (settings_.reasoning.report_tokens && a.reasoning_tokens > 0) {
      usage["completion_tokens_details"] = {{"reasoning_tokens", a.reasoning_tokens}};
    }
    if (a.stream) {
      if (a.include_usage) {
        send_event(a.request,
                   core::json_text(json{{"id", a.id},
                                        {"object", a.chat ? "chat.completion.chunk" : "text_completion"},
                                        {"created", a.created},
                                        {"model", settings_.model},
                                        {"choices", json::array()},
                                        {"usage", usage}}),
                   false);
      }
      send_event(a.request, "[DONE]", false);
      evhttp_send_reply_end(a.request);
      flush_output(a.connection);
    } else {
      json choice = {{"index", 0}, {"finish_reason", "length"}};
      if (a.chat) {
        choice["message"] = {{"role", "assistant"}, {"content", a.text}};
        if (!a.reasoning_text.empty()) {
          choice["message"]
                [settings_.reasoning.style == sim_reasoning_style::reasoning ? "reasoning" : "reasoning_content"] =
                    a.reasoning_text;
        }
      } else {
        choice["text"] = a.text;
      }
      reply_json(a.request, 200, "OK",
                 {{"id", a.id},
                  {"object", a.chat ? "chat.completion" : "text_completion"},
                  {"created", a.created},
                  {"model", settings_.model},
                  {"choices", json::array({choice})},
                  {"usage", usage}},
                 a.fault == sim_fault::invalid_utf8);
    }
    evhttp_connection_set_closecb(a.connection, nullptr, nullptr);
    ++counters_.succeeded;
    const auto ended_ns = monotonic_now_ns();
    counters_.e2e_latency.add(static_cast<double>(ended_ns - a.arrived_ns) * 1e-9);
    counters_.queue_time.add(static_cast<double>(a.scheduled_ns - a.arrived_ns) * 1e-9);
    counters_.prefill_time.add(static_cast<double>(a.first_token_ns - a.scheduled_ns) * 1e-9);
    counters_.decode_time.add(static_cast<double>(ended_ns - a.first_token_ns) * 1e-9);
    log_request(it->first, a, "done");
    active_.erase(it);
  }

  // An embeddings, rerank or score request's reply (the malformed fault: one result short).
  void reply_pooling(std::map<std::uint64_t, active_request>::iterator it) {
    auto& a = it->second;
    set_idle_timeout(a.connection, false);  // before the reply, which may free the connection
    const auto text = sim_pooling_reply(a.pooling, settings_.model, it->first, settings_.embedding_dimension,
                                        a.fault == sim_fault::malformed);
    evhttp_add_header(evhttp_request_get_output_headers(a.request), "Content-Type", "application/json");
    evbuffer* out = evbuffer_new();
    evbuffer_add(out, text.data(), text.size());
    evhttp_send_reply(a.request, 200, "OK", out);
    evbuffer_free(out);
    evhttp_connection_set_closecb(a.connection, nullptr, nullptr);
    ++counters_.succeeded;
    counters_.e2e_latency.add(static_cast<double>(monotonic_now_ns() - a.arrived_ns) * 1e-9);
    log_request(it->first, a, "done");
    active_.erase(it);
  }

  void log_request(std::uint64_t number, const active_request& a, const char* outcome) {
    log_line(number, a.arrived_ns, a.first_token_ns, a.prompt_tokens, a.max_tokens, outcome, a.scheduled_ns,
             a.log_extra);
  }

  // One line of --request-log (first_token_ns 0: no token was sent).
  void log_line(std::uint64_t number, std::int64_t arrived_ns, std::int64_t first_token_ns, std::int64_t prompt_tokens,
                std::int64_t max_tokens, const char* outcome, std::int64_t scheduled_ns = 0,
                std::string_view extra = {}) {
    if (!request_log_.is_open()) return;
    request_log_ << fmt::format(
        R"({{"request":{},"arrived_ns":{},"scheduled_ns":{},"first_token_ns":{},"ended_ns":{},"prompt_tokens":{},"max_tokens":{},"outcome":"{}"{}}})"
        "\n",
        number, arrived_ns, scheduled_ns, first_token_ns, monotonic_now_ns(), prompt_tokens, max_tokens, outcome,
        extra);
  }

  // GET /metrics: the engine's state now and the counters so far, as vLLM (V1) names them.
  void reply_metrics(evhttp_request* request) {
    const auto kv_total = static_cast<double>(settings_.engine.kv_cache_tokens);
    const auto text = sim_metrics_text({settings_.model, engine_.running(), engine_.waiting(),
                                        static_cast<double>(engine_.kv_tokens_used()) / kv_total, counters_});
    evkeyvalq* headers = evhttp_request_get_output_headers(request);
    evhttp_add_header(headers, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    evbuffer* out = evbuffer_new();
    evbuffer_add(out, text.data(), text.size());
    evhttp_send_reply(request, 200, "OK", out);
    evbuffer_free(out);
  }

  // GET /gpu-metrics: the stand-in GPU exporter (503 once its --gpu-exporter-stop-after has passed).
  void reply_gpu_metrics(evhttp_request* request) {
    const auto now = monotonic_now_ns();
    const auto& e = settings_.gpu_exporter;
    if (e.stop_after_s > 0 && first_request_ns_ != 0 &&
        static_cast<double>(now - first_request_ns_) * 1e-9 >= e.stop_after_s) {
      return reply_error(request, 503, "Service Unavailable", "the stand-in GPU exporter has stopped");
    }
    const auto kv_total = static_cast<double>(settings_.engine.kv_cache_tokens);
    const auto text = sim_gpu_exporter_text(e, static_cast<double>(now - started_ns_) * 1e-9, engine_.running() > 0,
                                            static_cast<double>(engine_.kv_tokens_used()) / kv_total);
    evhttp_add_header(evhttp_request_get_output_headers(request), "Content-Type", "text/plain; version=0.0.4");
    evbuffer* out = evbuffer_new();
    evbuffer_add(out, text.data(), text.size());
    evhttp_send_reply(request, 200, "OK", out);
    evbuffer_free(out);
  }

  // One line of --state-log, when the engine's state may have changed.
  void log_state() {
    if (!state_log_.is_open()) return;
    state_log_ << fmt::format(R"({{"t_ns":{},"running":{},"waiting":{},"kv_used":{},"kv_total":{}}})"
                              "\n",
                              monotonic_now_ns(), engine_.running(), engine_.waiting(), engine_.kv_tokens_used(),
                              settings_.engine.kv_cache_tokens);
  }

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
  std::map<std::uint64_t, active_request> active_;
  std::uint64_t requests_ = 0;
  std::ofstream request_log_;
  std::int64_t started_ns_ = monotonic_now_ns();  // time 0 of the stand-in GPU exporter's energy counters
  std::int64_t first_request_ns_ = 0;             // the first completion request's arrival
};

}  // namespace

const std::vector<sim_fault_entry>& sim_faults() {
  static const std::vector<sim_fault_entry> table = {
      {sim_fault::none, "none", "no fault"},
      {sim_fault::http_429, "http-429", "HTTP 429 Too Many Requests"},
      {sim_fault::http_500, "http-500", "HTTP 500 Internal Server Error"},
      {sim_fault::truncate, "truncate", "the connection closed after 2 tokens"},
      {sim_fault::end_early, "end-early",
       "the stream ended cleanly after 2 tokens, without a finish_reason, usage or [DONE]"},
      {sim_fault::malformed, "malformed", "a chunk that is not JSON"},
      {sim_fault::stall, "stall", "no more bytes after the first token, the connection left open"},
      {sim_fault::invalid_utf8, "invalid-utf8", "a raw 0xFF byte in the second token's text"},
      {sim_fault::huge_chunk, "huge-chunk", "a second token of --fault-bytes bytes of text"},
      {sim_fault::usage_negative, "usage-negative", "usage.completion_tokens -5"},
      {sim_fault::usage_huge, "usage-huge", "usage.completion_tokens 10^18"},
      {sim_fault::html_200, "html-200", "an HTML error page with status 200"},
      {sim_fault::wrong_output, "wrong-output",
       "output token --fault-token's leading space becomes '~' (a wrong answer, no error)"},
  };
  return table;
}

const char* to_string(sim_fault fault) {
  for (const auto& entry : sim_faults()) {
    if (entry.fault == fault) return entry.name;
  }
  return "none";
}

sim_fault sim_fault_from_string(const std::string& name) {
  std::vector<std::string_view> names;
  for (const auto& entry : sim_faults()) {
    if (name == entry.name) return entry.fault;
    names.emplace_back(entry.name);
  }
  throw usage_error(fmt::format("unknown fault '{}' ({})", name, fmt::join(names, ", ")));
}

std::string sim_fault_help() {
  std::vector<std::string> items;
  for (const auto& entry : sim_faults()) {
    if (entry.fault != sim_fault::none) items.push_back(fmt::format("{} ({})", entry.name, entry.effect));
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

std::int64_t sim_prompt_tokens(const std::string& body_json) {
  const auto j = json::parse(body_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  if (j.contains("prompt")) {
    const auto& p = j.at("prompt");
    if (p.is_array()) {
      if (!p.empty() && p.at(0).is_array()) return static_cast<std::int64_t>(p.at(0).size());  // batch of id lists
      if (!p.empty() && p.at(0).is_string()) return count_words(p.at(0).get<std::string>());
      return static_cast<std::int64_t>(p.size());
    }
    if (p.is_string()) return count_words(p.get<std::string>());
  }
  std::int64_t words = 0;
  if (j.contains("messages") && j.at("messages").is_array()) {
    for (const auto& m : j.at("messages")) {
      if (m.is_object() && m.contains("content") && m.at("content").is_string()) {
        words += count_words(m.at("content").get<std::string>());
      }
    }
  }
  return words;
}

void run_sim_server(const sim_server_settings& settings, const std::atomic<bool>& stop,
                    const std::function<void(int port)>& on_listening) {
  raise_open_file_limit();  // thousands of concurrent streams need thousands of sockets
  // A client that goes away mid-stream is an error on that socket, not the end of the server.
  std::signal(SIGPIPE, SIG_IGN);
  sim_server server(settings);
  server.run(stop, on_listening);
}

}  // namespace ironbench::serve
