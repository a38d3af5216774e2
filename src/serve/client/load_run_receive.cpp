#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "serve/client/load_run.hpp"
#include "serve/client/usage_plausibility.hpp"
#include "serve/measures/reasoning_metrics.hpp"

namespace ironbench::serve {

// A finished transfer (its status set): the point's counts and clocks, then its record: a
// failure of its class, or a success with its timing, lengths and text.
void load_run::receive(load_stream_state& st, const transfer_result& t) {
  if (grace_over_) unfinished_records_.push_back(st.index);  // its end is the cut's, not its own
  for (std::size_t k = 0; k < st.delays_ms.size(); ++k) {
    delivery_ms_.push_back(st.delays_ms[k]);
    if (k > 0) itl_error_ms_.push_back(std::fabs(st.delays_ms[k] - st.delays_ms[k - 1]));
  }
  --in_flight_;
  --outstanding_[st.endpoint];
  const double end = t.end_s - origin_;
  last_slot_freed_ = end;
  any_finished_ = true;
  if (!grace_over_) last_end_ = std::max(last_end_, end);
  auto& r = result_.records[st.index];
  r.e2el_s = end - r.sent_s;  // replaced by the last token's time when successful
  r.pooled = is_pooling(s_.kind);
  r.invalid_utf8 = st.timing.had_invalid_utf8();
  if (st.oversized) {
    r.error_class = "oversized";
    r.error = fmt::format("the response exceeded --max-response-bytes ({} bytes); the connection was dropped",
                          s_.max_response_bytes);
  } else if (!t.transport_ok) {
    r.error_class = t.error_class;
    r.error = t.error;
  } else if (st.status != 200) {
    r.error_class = http_error_class(st.status);
    r.error = fmt::format("HTTP {}: {}", st.status, server_text_excerpt(st.body, 200));
  } else if (!st.failure_class.empty()) {
    r.error_class = st.failure_class;
    r.error = st.failure;
  } else if (is_pooling(s_.kind)) {
    finish_pooling_record(r, s_.kind, st.body, requests_[st.request]->items, end, embedding_dimension_);
    return;
  } else {
    check_reply(st, t, r);
  }
  if (!r.error_class.empty()) return;
  complete(st, r);
}

// A 200 reply of a generating kind: a stream that ended well (else its failure's class in `r`),
// or a whole completion, timed as its one chunk.
void load_run::check_reply(load_stream_state& st, const transfer_result& t, request_record& r) {
  if (s_.stream) {
    if (st.events == 0 && !t.content_type.empty() && !is_event_stream(t.content_type)) {
      // An HTML page from a proxy, a JSON body: a reply, but not the stream asked for.
      r.error_class = "malformed";
      r.error = fmt::format("a {} reply, not an event stream: {}", server_text_excerpt(t.content_type, 100),
                            server_text_excerpt(st.body, 120));
    } else if (st.parser->finish()) {
      r.error_class = "truncated";
      r.error = "the stream ended inside an event";
    } else if (!st.timing.has_first_token()) {
      r.error_class = "empty";
      r.error = "no token in the response";
    } else if (!st.timing.saw_end()) {
      r.error_class = "truncated";
      r.error = fmt::format("the stream ended after {} token events without a finish_reason, [DONE] or usage",
                            st.timing.token_events());
    }
    return;
  }
  const auto chunk = parse_openai_chunk(st.body, s_.api);
  r.invalid_utf8 = chunk.invalid_utf8;
  if (chunk.malformed || !chunk.has_choices) {
    r.error_class = "malformed";
    r.error = "the response is not a completion";
  } else {
    st.timing.on_chunk((st.arrived_s >= 0 ? st.arrived_s : t.end_s) - origin_, chunk);
  }
}

// A request that succeeded: its latencies, its output length (the server's usage where it is
// plausible, else the client's count), its reasoning, and its text kept where it is read.
void load_run::complete(load_stream_state& st, request_record& r) {
  r.success = true;
  r.ttft_s = st.timing.ttft_s();
  r.e2el_s = st.timing.e2el_s();
  r.itl_s = st.timing.itl_s();
  r.usage_output_tokens = st.timing.usage_completion_tokens();
  r.usage_prompt_tokens = st.timing.usage_prompt_tokens();
  st.timing.finish_reasoning();
  if (s_.tokenizer != nullptr) r.tokenizer_output_tokens = tokenizer_output_tokens(st.timing, *s_.tokenizer);
  const auto& request = *requests_[st.request];
  const auto text_events = st.timing.text_events();
  const auto client_count = r.tokenizer_output_tokens.value_or(static_cast<std::int64_t>(text_events));
  r.usage_problem = implausible_usage({r.usage_output_tokens, request.max_tokens, text_events});
  r.output_len = r.usage_problem.empty() ? r.usage_output_tokens.value_or(client_count) : client_count;
  r.reasoning = measure_reasoning(st.timing, r.output_len, s_.tokenizer);
  keep_text(st, r);
}

// The text goes where something reads it: the record (the result file's texts, within their
// budget) and a conversation's next turn (which sends it); otherwise it is dropped.
void load_run::keep_text(load_stream_state& st, request_record& r) {
  const auto& request = *requests_[st.request];
  const bool next_turn_needs = request.session != no_session && queue_->next_turn(st.request).has_value();
  const bool in_flight_kept = st.timing.keeps_text();
  auto text = st.timing.take_text();
  const bool kept = s_.keep_generated_text && in_flight_kept && text.size() <= kept_text_limit_ - kept_text_bytes_;
  if (s_.keep_generated_text && !kept) r.text_not_kept = true;
  if (kept) {
    kept_text_bytes_ += text.size();
    if (next_turn_needs) answers_[st.request] = text;
    r.generated_text = std::move(text);
  } else if (next_turn_needs) {
    answers_[st.request] = std::move(text);
  }
}

}  // namespace ironbench::serve
