#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "core/json_text.hpp"
#include "serve/common/prompt_identity.hpp"
#include "serve/common/text_units.hpp"
#include "serve/sim/sim_http_server.hpp"

namespace ironbench::serve {
namespace {

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

void sim_http_server::handle(evhttp_request* request) {
  sim_incoming in;
  in.arrived_ns = sim_monotonic_now_ns();
  // Send every token event at once: with Nagle's algorithm a small chunk waits for the client's
  // (delayed, up to 40 ms) acknowledgement of the previous one.
  if (auto* connection = evhttp_request_get_connection(request)) {
    if (auto* bev = evhttp_connection_get_bufferevent(connection)) {
      const int one = 1;
      setsockopt(bufferevent_getfd(bev), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
  }
  const std::string path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(request));
  const auto method = evhttp_request_get_command(request);
  if (method == EVHTTP_REQ_GET && answer_get(request, path)) return;
  in.chat = path == "/v1/chat/completions";
  in.pooling = sim_pooling_route(path);
  if (method != EVHTTP_REQ_POST || (!in.chat && in.pooling == sim_pooling_kind::none && path != "/v1/completions")) {
    return reply_error(request, 404, "Not Found", "no route " + path);
  }
  if (const auto refusal = read_incoming(request, in); !refusal.empty()) {
    return reply_error(request, 400, "Bad Request", refusal);
  }
  admit(request, in);
}

// GET /health, /metrics, /gpu-metrics (with a stand-in exporter) and /v1/models: true when `path`
// was one of them (and answered).
bool sim_http_server::answer_get(evhttp_request* request, const std::string& path) {
  if (path == "/health") {
    reply_json(request, 200, "OK", json::object());
    return true;
  }
  if (path == "/metrics") {
    reply_metrics(request);
    return true;
  }
  if (path == "/gpu-metrics" && !settings_.gpu_exporter.kind.empty()) {
    reply_gpu_metrics(request);
    return true;
  }
  if (path != "/v1/models") return false;
  auto models = json::array({{{"id", settings_.model}, {"object", "model"}, {"owned_by", "ironbench-sim"}}});
  for (const auto& adapter : settings_.adapters) {  // as vLLM lists its LoRA modules
    models.push_back(
        {{"id", adapter.name}, {"object", "model"}, {"owned_by", "ironbench-sim"}, {"parent", settings_.model}});
  }
  reply_json(request, 200, "OK", {{"object", "list"}, {"data", models}});
  return true;
}

// The request's body read into `in`; what is wrong with it (an HTTP 400's message), or "".
std::string sim_http_server::read_incoming(evhttp_request* request, sim_incoming& in) const {
  evbuffer* input = evhttp_request_get_input_buffer(request);
  const auto size = evbuffer_get_length(input);
  in.body.assign(size, '\0');
  evbuffer_copyout(input, in.body.data(), size);
  in.parsed = json::parse(in.body, nullptr, false);
  if (in.parsed.is_discarded() || !in.parsed.is_object()) return "the body is not JSON";
  auto reading = read_sim_body(in.parsed);
  if (!reading.error.empty()) return reading.error;
  in.request = std::move(reading.request);
  if (in.pooling != sim_pooling_kind::none) {
    in.pooled = read_sim_pooling_request(in.pooling, in.parsed);
    if (!in.pooled.error.empty()) return in.pooled.error;
  }
  if (in.chat) in.images = count_sim_images(in.parsed);
  return in.images.error;
}

// A request read: numbered, refused for an unknown model or a fault that answers at once, else
// submitted to the engine and its answer begun.
void sim_http_server::admit(evhttp_request* request, sim_incoming& in) {
  const auto number = ++requests_;
  if (first_request_ns_ == 0) first_request_ns_ = in.arrived_ns;
  // The model named: the base model, a LoRA adapter, or vLLM's 404 for any other.
  const auto& model = in.request.model.empty() ? settings_.model : in.request.model;
  const auto model_field = fmt::format(R"(,"model":{})", core::json_text(json(model)));
  const auto adapter = sim_model_index(in.request.model, settings_.model, settings_.adapters);
  if (!adapter) {
    log_line(number, in.arrived_ns, 0, 0, 0, "http 404", 0, model_field);
    return reply_json(request, 404, "Not Found", sim_unknown_model_error(in.request.model));
  }
  sim_fault fault = sim_fault::none;
  if (settings_.fault_every > 0 && number % static_cast<std::uint64_t>(settings_.fault_every) == 0)
    fault = settings_.fault;
  if (reply_fault(request, number, in.arrived_ns, fault)) return;
  auto a = active_request_of(request, in, number, fault, *adapter, model, model_field);
  if (!engine_.submit({number, a.prompt_tokens, a.max_tokens, a.adapter, a.cached_tokens})) {
    return reply_error(request, 400, "Bad Request",
                       fmt::format("prompt ({}) + max_tokens ({}) exceed the KV cache ({} tokens)", a.prompt_tokens,
                                   a.max_tokens, settings_.engine.kv_cache_tokens));
  }
  start_answer(request, std::move(a), number);
}

// The faults that answer in place of the request (HTTP 429, 500, an HTML page): true when `fault`
// is one of them and was sent.
bool sim_http_server::reply_fault(evhttp_request* request, std::uint64_t number, std::int64_t arrived_ns,
                                  sim_fault fault) {
  if (fault == sim_fault::http_429) {
    log_line(number, arrived_ns, 0, 0, 0, "http 429");
    reply_error(request, 429, "Too Many Requests", "simulated rate limit");
    return true;
  }
  if (fault == sim_fault::http_500) {
    log_line(number, arrived_ns, 0, 0, 0, "http 500");
    reply_error(request, 500, "Internal Server Error", "simulated failure");
    return true;
  }
  if (fault == sim_fault::html_200) {
    log_line(number, arrived_ns, 0, 0, 0, "html 200");
    reply_html(request);
    return true;
  }
  return false;
}

// What the server keeps of a request while answering it: its lengths, its output's first word, its
// cached prefix and reasoning tokens, and its --request-log fields.
sim_active_request sim_http_server::active_request_of(evhttp_request* request, sim_incoming& in, std::uint64_t number,
                                                      sim_fault fault, int adapter, const std::string& model,
                                                      const std::string& model_field) {
  sim_active_request a;
  a.request = request;
  a.connection = evhttp_request_get_connection(request);
  a.chat = in.chat;
  a.stream = in.request.stream;
  a.include_usage = in.request.include_usage;
  a.prompt_tokens = sim_prompt_tokens(in.body) + in.images.text_words + in.images.tokens;
  a.max_tokens = in.request.max_tokens;
  a.text_offset = static_cast<std::size_t>(prompt_hash_value(in.parsed).value_or(0) % std::size(one_token_words));
  if (in.images.images > 0) {
    a.log_extra = fmt::format(R"(,"images":{},"image_tokens":{},"text_tokens":{})", in.images.images, in.images.tokens,
                              a.prompt_tokens - in.images.tokens);
  }
  if (in.pooling != sim_pooling_kind::none) {
    // One prefill of its tokens: the reply leaves with what would be its first token.
    a.prompt_tokens = in.pooled.prompt_tokens;
    a.max_tokens = 1;
    a.stream = false;
    a.log_extra = fmt::format(R"(,"inputs":{})", in.pooled.inputs.size());
    a.pooling = std::move(in.pooled);
  }
  a.adapter = adapter;
  a.log_extra += model_field;
  if (in.pooling == sim_pooling_kind::none && prefix_cache_.enabled()) {
    // Looked up on arrival: a prompt whose blocks arrived before within the window
    // (docs/serving-metrics.md, serve-sim).
    const auto now_s = static_cast<double>(in.arrived_ns) * 1e-9;
    const auto salt = std::hash<std::string>{}(model);
    a.cached_tokens =
        std::min(a.prompt_tokens, prefix_cache_.lookup_and_insert(sim_prompt_token_ids(in.parsed), salt, now_s));
    a.log_extra += fmt::format(R"(,"cached_tokens":{})", a.cached_tokens);
  }
  if (in.pooling == sim_pooling_kind::none && settings_.reasoning.tokens > 0) {
    a.reasoning_tokens = sim_reasoning_tokens(settings_.reasoning, a.max_tokens);
    a.log_extra += fmt::format(R"(,"reasoning_tokens":{})", a.reasoning_tokens);
  }
  a.id = fmt::format("{}-{}", in.chat ? "chatcmpl" : "cmpl", number);
  a.created = static_cast<long long>(unix_seconds());
  a.fault = fault;
  a.arrived_ns = in.arrived_ns;
  return a;
}

// A request the engine took: its connection held open while it is answered, a stream's headers
// sent, and the engine stepping.
void sim_http_server::start_answer(evhttp_request* request, sim_active_request a, std::uint64_t number) {
  evhttp_connection_set_closecb(a.connection, &sim_http_server::on_close, this);
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

}  // namespace ironbench::serve
