#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/json_text.hpp"
#include "serve/common/text_units.hpp"
#include "serve/sim/sim_http_server.hpp"

namespace ironbench::serve {

// Steps follow each other on the planned timeline (a step starts when the previous one was
// planned to end), so the timer's own latency does not accumulate into the step times.
void sim_http_server::start_step() {
  auto step = engine_.next_step();
  log_state();
  const auto now = std::chrono::steady_clock::now();
  if (!step) {
    stepping_ = false;
    return;
  }
  const auto duration =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(step->duration_s));
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

void sim_http_server::on_step(evutil_socket_t, short, void* self) {
  auto* s = static_cast<sim_http_server*>(self);
  for (const auto& e : s->pending_) s->emit(e);
  s->pending_.clear();
  s->start_step();
}

// One token event, formatted directly: this runs once per token of every stream (a JSON
// tree per token was the simulator's largest cost at thousands of streams). The id, model
// and word need no escaping beyond what json_model_ holds.
// `field`: the delta's field of a chat token (content, or reasoning_content / reasoning).
std::string sim_http_server::choice_text(const sim_active_request& a, std::string_view word, bool first, bool finished,
                                         std::string_view field) {
  const char* reason = finished ? "\"length\"" : "null";
  return a.chat ? fmt::format(R"({{"index":0,"finish_reason":{},"delta":{{"{}":"{}"{}}}}})", reason, field, word,
                              first ? R"(,"role":"assistant")" : "")
                : fmt::format(R"({{"index":0,"finish_reason":{},"text":"{}","logprobs":null}})", reason, word);
}

std::string sim_http_server::chunk_text(const sim_active_request& a, std::string_view word, bool first, bool finished,
                                        std::string_view field) const {
  const auto sent_ns = sim_monotonic_now_ns();
  const std::string choice = choice_text(a, word, first, finished, field);
  // ironbench_sim_sent_ns: ground truth for clients on this host (CLOCK_MONOTONIC).
  return fmt::format(R"({{"id":"{}","object":"{}","created":{},"model":{},"choices":[{}],"ironbench_sim_sent_ns":{}}})",
                     a.id, a.chat ? "chat.completion.chunk" : "text_completion", a.created, json_model_, choice,
                     sent_ns);
}

// Queues one SSE event on the reply; `flush`: hands it to the kernel at once.
void sim_http_server::send_event(evhttp_request* request, const std::string& data, bool flush) {
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
void sim_http_server::flush_output(evhttp_connection* connection) const {
  if (connection == nullptr || !settings_.write_each_event) return;
  bufferevent* channel = evhttp_connection_get_bufferevent(connection);
  evbuffer* output = bufferevent_get_output(channel);
  evbuffer_unfreeze(output, 1);
  evbuffer_write(output, bufferevent_getfd(channel));
  evbuffer_freeze(output, 1);
}

void sim_http_server::emit(const sim_emission& e) {
  const auto it = active_.find(e.id);
  if (it == active_.end()) return;  // the client went away
  auto& a = it->second;
  if (a.first_token_ns == 0) {
    a.first_token_ns = sim_monotonic_now_ns();
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
      send_event(a.request, fmt::format(R"({{"choices":[{}]}})", choice_text(a, word, false, e.finished, token.field)),
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
std::string sim_http_server::token_word(const sim_active_request& a, std::int64_t index) const {
  std::string word = one_token_words[(a.text_offset + static_cast<std::size_t>(index)) % std::size(one_token_words)];
  if (a.fault == sim_fault::wrong_output && index == settings_.fault_token) return "~" + word.substr(1);
  if (index != 1) return word;
  if (a.fault == sim_fault::invalid_utf8) return word + "\xFF";
  if (a.fault == sim_fault::huge_chunk) return std::string(static_cast<std::size_t>(settings_.fault_bytes), 'x');
  return word;
}

// What the usage says the answer's length was: the truth, or a lie of the request's fault.
std::int64_t sim_http_server::reported_completion_tokens(const sim_active_request& a) {
  if (a.fault == sim_fault::usage_negative) return -5;
  if (a.fault == sim_fault::usage_huge) return 1'000'000'000'000'000'000;
  return a.max_tokens;
}

void sim_http_server::usage_done(std::map<std::uint64_t, sim_active_request>::iterator it) {
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
  const auto ended_ns = sim_monotonic_now_ns();
  counters_.e2e_latency.add(static_cast<double>(ended_ns - a.arrived_ns) * 1e-9);
  counters_.queue_time.add(static_cast<double>(a.scheduled_ns - a.arrived_ns) * 1e-9);
  counters_.prefill_time.add(static_cast<double>(a.first_token_ns - a.scheduled_ns) * 1e-9);
  counters_.decode_time.add(static_cast<double>(ended_ns - a.first_token_ns) * 1e-9);
  log_request(it->first, a, "done");
  active_.erase(it);
}

}  // namespace ironbench::serve
