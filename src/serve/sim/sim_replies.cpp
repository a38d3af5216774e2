#include <event2/buffer.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>

#include "core/json_text.hpp"
#include "serve/sim/sim_http_server.hpp"

namespace ironbench::serve {

// `raw_invalid_bytes`: the body's invalid UTF-8 is sent as the byte 0xFF (the invalid-utf8
// fault) instead of U+FFFD.
void sim_http_server::reply_json(evhttp_request* request, int status, const char* reason, const json& body,
                                 bool raw_invalid_bytes) {
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

void sim_http_server::reply_error(evhttp_request* request, int status, const char* reason, const std::string& message) {
  reply_json(request, status, reason, {{"error", {{"message", message}, {"type", reason}, {"code", status}}}});
}

// A proxy's error page with status 200 (what a misconfigured gateway sends).
void sim_http_server::reply_html(evhttp_request* request) {
  static constexpr std::string_view page =
      "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
      "<body><h1>Bad Gateway</h1><p>The upstream server is not answering.</p></body></html>\n";
  evhttp_add_header(evhttp_request_get_output_headers(request), "Content-Type", "text/html; charset=utf-8");
  evbuffer* out = evbuffer_new();
  evbuffer_add(out, page.data(), page.size());
  evhttp_send_reply(request, 200, "OK", out);
  evbuffer_free(out);
}

// An embeddings, rerank or score request's reply (the malformed fault: one result short).
void sim_http_server::reply_pooling(std::map<std::uint64_t, sim_active_request>::iterator it) {
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
  counters_.e2e_latency.add(static_cast<double>(sim_monotonic_now_ns() - a.arrived_ns) * 1e-9);
  log_request(it->first, a, "done");
  active_.erase(it);
}

// GET /metrics: the engine's state now and the counters so far, as vLLM (V1) names them.
void sim_http_server::reply_metrics(evhttp_request* request) {
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
void sim_http_server::reply_gpu_metrics(evhttp_request* request) {
  const auto now = sim_monotonic_now_ns();
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

void sim_http_server::log_request(std::uint64_t number, const sim_active_request& a, const char* outcome) {
  log_line(number, a.arrived_ns, a.first_token_ns, a.prompt_tokens, a.max_tokens, outcome, a.scheduled_ns, a.log_extra);
}

// One line of --request-log (first_token_ns 0: no token was sent).
void sim_http_server::log_line(std::uint64_t number, std::int64_t arrived_ns, std::int64_t first_token_ns,
                               std::int64_t prompt_tokens, std::int64_t max_tokens, const char* outcome,
                               std::int64_t scheduled_ns, std::string_view extra) {
  if (!request_log_.is_open()) return;
  request_log_ << fmt::format(
      R"({{"request":{},"arrived_ns":{},"scheduled_ns":{},"first_token_ns":{},"ended_ns":{},"prompt_tokens":{},"max_tokens":{},"outcome":"{}"{}}})"
      "\n",
      number, arrived_ns, scheduled_ns, first_token_ns, sim_monotonic_now_ns(), prompt_tokens, max_tokens, outcome,
      extra);
}

// One line of --state-log, when the engine's state may have changed.
void sim_http_server::log_state() {
  if (!state_log_.is_open()) return;
  state_log_ << fmt::format(R"({{"t_ns":{},"running":{},"waiting":{},"kv_used":{},"kv_total":{}}})"
                            "\n",
                            sim_monotonic_now_ns(), engine_.running(), engine_.waiting(), engine_.kv_tokens_used(),
                            settings_.engine.kv_cache_tokens);
}

}  // namespace ironbench::serve
