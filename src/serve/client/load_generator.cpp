#include "serve/client/load_generator.hpp"

#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <set>

#include "core/statistics.hpp"
#include "core/text.hpp"
#include "platform/cpu_load.hpp"
#include "serve/client/pooling_reply.hpp"
#include "serve/client/send_queue.hpp"
#include "serve/client/sse_parser.hpp"
#include "serve/client/stream_client.hpp"
#include "serve/client/usage_plausibility.hpp"
#include "serve/client/utf8_repair.hpp"
#include "serve/common/text_units.hpp"
#include "serve/measures/reasoning_metrics.hpp"
#include "serve/point/lateness_limit.hpp"
#include "serve/workload/arrival_schedule.hpp"

namespace ironbench::serve {
namespace {

// The mean gap between consecutive sends (records are in send order); 0 with one send.
double mean_gap_ms(const std::vector<request_record>& records) {
  if (records.size() < 2) return 0;
  return (records.back().sent_s - records.front().sent_s) * 1e3 / static_cast<double>(records.size() - 1);
}

// The median end-to-end latency of the completed requests; 0 when none completed.
double median_e2el_ms(const std::vector<request_record>& records) {
  std::vector<double> ms;
  for (const auto& r : records) {
    if (r.success) ms.push_back(r.e2el_s * 1e3);
  }
  return ms.empty() ? 0 : core::percentile(ms, 50);
}

double thread_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// One request in flight: its parser, timing and what went wrong so far.
struct stream_state {
  std::size_t index = 0;    // into the records
  std::size_t request = 0;  // into this rank's requests
  std::size_t endpoint = 0;
  request_timing timing{0};
  std::unique_ptr<sse_parser> parser;
  std::string body;  // non-streaming responses, and error bodies
  std::string failure_class, failure;
  long status = 0;
  std::size_t response_bytes = 0;  // received so far
  bool oversized = false;          // more than max_response_bytes: the transfer was ended
  std::size_t events = 0;          // SSE events with data
  std::vector<double> delays_ms;   // receive - server send, per stamped token event
  double arrived_s = -1;           // when the bytes being parsed reached the host (client clock)
  double last_token_arrived_s = -1;
};

// Whether a Content-Type names an event stream ("text/event-stream; charset=utf-8").
bool is_event_stream(const std::string& content_type) {
  return ascii_lower(content_type).rfind("text/event-stream", 0) == 0;
}

// The start of a server's text for an error message: at most `limit` bytes, valid UTF-8.
std::string server_text_excerpt(std::string_view text, std::size_t limit) {
  return repaired_utf8(text.substr(0, limit));
}

// The point's verdict also covers what the server said about lengths: requests whose usage
// could not be right (their lengths are then the client's counts).
void judge_reported_usage(load_result& result) {
  std::size_t implausible = 0, completed = 0;
  std::string first;
  for (const auto& r : result.records) {
    if (!r.success) continue;
    ++completed;
    if (r.usage_problem.empty()) continue;
    if (implausible++ == 0) first = r.usage_problem;
  }
  if (implausible == 0) return;
  const auto why = fmt::format(
      "the server reported implausible usage for {} of {} completed requests (first: {}); their output lengths are "
      "the client's counts",
      implausible, completed, first);
  result.invalid_reason = result.valid ? why : result.invalid_reason + "; " + why;
  result.valid = false;
}

}  // namespace

json endpoint_breakdown(const std::vector<request_record>& records, const std::vector<std::string>& urls) {
  json out = json::object();
  for (const auto& url : urls) out[url] = {{"requests", 0}, {"completed", 0}, {"failed", 0}};
  for (const auto& r : records) {
    auto& e = out[r.endpoint];
    e["requests"] = e.value("requests", 0) + 1;
    const char* outcome = r.success ? "completed" : "failed";
    e[outcome] = e.value(outcome, 0) + 1;
  }
  for (const auto& url : urls) {
    std::vector<double> ttft;
    for (const auto& r : records) {
      if (r.success && r.endpoint == url) ttft.push_back(r.ttft_s * 1e3);
    }
    out[url]["mean_ttft_ms"] = ttft.empty() ? 0.0 : core::mean(ttft);
  }
  return out;
}

std::string http_error_class(long status) {
  if (status == 429) return "http_429";
  if (status >= 400 && status < 500) return "http_4xx";
  if (status >= 500 && status < 600) return "http_5xx";
  return "http_other";
}

load_result run_load(const std::vector<prepared_request>& all_requests, const load_settings& s,
                     const std::atomic<bool>* cancel) {
  raise_open_file_limit();
  load_result result;
  // The requests that start something: single requests and the first of each conversation's
  // turns present; only they follow the schedule (later turns follow their predecessors).
  std::vector<std::size_t> starters;
  std::vector<bool> starts(all_requests.size(), false);
  {
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < all_requests.size(); ++i) {
      const auto session = all_requests[i].session;
      if (session != no_session && !seen.insert(session).second) continue;
      starts[i] = true;
      starters.push_back(i);
    }
  }
  // A trace's own times (from its first request, scaled), else the rate's schedule.
  const bool traced = !all_requests.empty() && std::all_of(all_requests.begin(), all_requests.end(),
                                                           [](const prepared_request& r) { return r.send_at_s >= 0; });
  std::vector<double> full_schedule;
  bool schedule_capped = true;  // bounded by time: the prepared requests end before the duration's arrivals
  if (traced) {
    for (const auto& r : all_requests) {
      full_schedule.push_back((r.send_at_s - all_requests.front().send_at_s) / s.trace_speed);
    }
    check_schedule_span(full_schedule, fmt::format("the trace's times at --trace-speed {:g}", s.trace_speed));
  } else if (s.duration_s > 0) {
    // One arrival more than the requests prepared: whether they fall short of the duration's.
    full_schedule =
        timed_arrival_times(s.duration_s, starters.size() + 1, s.request_rate, s.ramp, s.burstiness, s.seed);
    schedule_capped = full_schedule.size() > starters.size();
    // Requests beyond the arrivals of the duration are never due.
    full_schedule.resize(starters.size(), std::numeric_limits<double>::infinity());
  } else if (s.ramp.enabled()) {
    full_schedule = ramp_arrival_times(starters.size(), s.ramp, s.burstiness, s.seed);
  } else {
    full_schedule = arrival_times(starters.size(), s.request_rate, s.burstiness, s.seed);
  }
  // Several client ranks: this one sends every ranks-th request (or conversation) of the one
  // schedule, so that together they send exactly what one client would. The schedule times the
  // requests that start something: single requests and first turns.
  std::vector<const prepared_request*> requests;
  std::vector<double> schedule;
  std::size_t starter = 0;
  for (std::size_t i = 0; i < all_requests.size(); ++i) {
    const auto& r = all_requests[i];
    const std::size_t unit = r.session == no_session ? i : r.session;
    if (starts[i]) ++starter;
    if (static_cast<int>(unit % static_cast<std::size_t>(std::max(1, s.ranks))) != s.rank) continue;
    requests.push_back(&r);
    if (starts[i]) schedule.push_back(full_schedule[traced ? i : starter - 1]);
  }
  send_queue queue(requests, schedule);
  std::vector<std::string> answers(requests.size());
  stream_client client(s.kernel_receive_stamps);
  pooling_dimension embedding_dimension;  // pooling kinds: every reply's vectors of one length
  std::vector<std::size_t> outstanding(s.base_urls.size(), 0);
  std::vector<double> lateness_ms;
  result.records.reserve(requests.size());
  std::size_t round_robin = 0, in_flight = 0, dropped = 0;
  double last_slot_freed = 0;
  // Schedule time 0: a moment from now, or the moment the ranks agreed on (now, when that has
  // passed already: the lateness then shows it).
  const double unix_now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double lead = s.start_at_unix_s > 0 ? std::max(0.0, s.start_at_unix_s - unix_now) : 0.005;
  const double origin = client.now() + lead;
  result.origin_monotonic_ns = static_cast<std::int64_t>(client.monotonic_ns(origin));
  result.origin_unix_s = unix_now + lead;
  const double cpu_start = thread_cpu_seconds();
  const platform::sysfs_reader host_root;
  const auto host_cpu_before = platform::read_cpu_times(host_root);
  const double process_cpu_start = platform::process_cpu_seconds();
  double first_send = -1, last_end = 0;
  // A closed loop (no rate, a concurrency limit) starts with a burst: its first requests are
  // all due at once and leave one after another. How fast a burst leaves is no schedule kept
  // or missed, so their lateness is not judged (nor counted); from the first completion on, a
  // send is due when a slot frees.
  const bool closed_loop = !traced && !s.ramp.enabled() && std::isinf(s.request_rate) && s.max_concurrency > 0;
  bool any_finished = false;

  auto pick_endpoint = [&] {
    if (s.balance == balance_policy::round_robin) return round_robin++ % s.base_urls.size();
    return static_cast<std::size_t>(std::min_element(outstanding.begin(), outstanding.end()) - outstanding.begin());
  };

  std::vector<double> delivery_ms, itl_error_ms, socket_wait_ms;
  std::size_t timed_together = 0, token_events = 0;
  // Bytes of text kept in the records (--save-detailed), against max_kept_text_bytes.
  std::size_t kept_text_bytes = 0;
  const std::size_t kept_text_limit = s.max_kept_text_bytes > 0 ? static_cast<std::size_t>(s.max_kept_text_bytes)
                                                                : std::numeric_limits<std::size_t>::max();
  // A point bounded by time: set when its grace period ends; the requests cancelled then are
  // unfinished, not failed.
  bool grace_over = false;
  std::vector<std::size_t> unfinished_records;
  auto finish = [&](std::shared_ptr<stream_state> st, const transfer_result& t) {
    if (grace_over) unfinished_records.push_back(st->index);  // its end is the cut's, not its own
    for (std::size_t k = 0; k < st->delays_ms.size(); ++k) {
      delivery_ms.push_back(st->delays_ms[k]);
      if (k > 0) itl_error_ms.push_back(std::fabs(st->delays_ms[k] - st->delays_ms[k - 1]));
    }
    --in_flight;
    --outstanding[st->endpoint];
    const double end = t.end_s - origin;
    last_slot_freed = end;
    any_finished = true;
    if (!grace_over) last_end = std::max(last_end, end);
    auto& r = result.records[st->index];
    r.e2el_s = end - r.sent_s;  // replaced by the last token's time when successful
    r.pooled = is_pooling(s.kind);
    r.invalid_utf8 = st->timing.had_invalid_utf8();
    if (st->oversized) {
      r.error_class = "oversized";
      r.error = fmt::format("the response exceeded --max-response-bytes ({} bytes); the connection was dropped",
                            s.max_response_bytes);
    } else if (!t.transport_ok) {
      r.error_class = t.error_class;
      r.error = t.error;
    } else if (st->status != 200) {
      r.error_class = http_error_class(st->status);
      r.error = fmt::format("HTTP {}: {}", st->status, server_text_excerpt(st->body, 200));
    } else if (!st->failure_class.empty()) {
      r.error_class = st->failure_class;
      r.error = st->failure;
    } else if (is_pooling(s.kind)) {
      finish_pooling_record(r, s.kind, st->body, requests[st->request]->items, end, embedding_dimension);
      return;
    } else if (s.stream) {
      if (st->events == 0 && !t.content_type.empty() && !is_event_stream(t.content_type)) {
        // An HTML page from a proxy, a JSON body: a reply, but not the stream asked for.
        r.error_class = "malformed";
        r.error = fmt::format("a {} reply, not an event stream: {}", server_text_excerpt(t.content_type, 100),
                              server_text_excerpt(st->body, 120));
      } else if (st->parser->finish()) {
        r.error_class = "truncated";
        r.error = "the stream ended inside an event";
      } else if (!st->timing.has_first_token()) {
        r.error_class = "empty";
        r.error = "no token in the response";
      } else if (!st->timing.saw_end()) {
        r.error_class = "truncated";
        r.error = fmt::format("the stream ended after {} token events without a finish_reason, [DONE] or usage",
                              st->timing.token_events());
      }
    } else {
      const auto chunk = parse_openai_chunk(st->body, s.api);
      r.invalid_utf8 = chunk.invalid_utf8;
      if (chunk.malformed || !chunk.has_choices) {
        r.error_class = "malformed";
        r.error = "the response is not a completion";
      } else {
        st->timing.on_chunk((st->arrived_s >= 0 ? st->arrived_s : t.end_s) - origin, chunk);
      }
    }
    if (!r.error_class.empty()) return;
    r.success = true;
    r.ttft_s = st->timing.ttft_s();
    r.e2el_s = st->timing.e2el_s();
    r.itl_s = st->timing.itl_s();
    r.usage_output_tokens = st->timing.usage_completion_tokens();
    r.usage_prompt_tokens = st->timing.usage_prompt_tokens();
    st->timing.finish_reasoning();
    if (s.tokenizer != nullptr) r.tokenizer_output_tokens = tokenizer_output_tokens(st->timing, *s.tokenizer);
    const auto& request = *requests[st->request];
    const auto text_events = st->timing.text_events();
    const auto client_count = r.tokenizer_output_tokens.value_or(static_cast<std::int64_t>(text_events));
    r.usage_problem = implausible_usage({r.usage_output_tokens, request.max_tokens, text_events});
    r.output_len = r.usage_problem.empty() ? r.usage_output_tokens.value_or(client_count) : client_count;
    r.reasoning = measure_reasoning(st->timing, r.output_len, s.tokenizer);
    // The text goes where something reads it: the record (the result file's texts, within
    // their budget) and a conversation's next turn (which sends it); otherwise it is dropped.
    const bool next_turn_needs = request.session != no_session && queue.next_turn(st->request).has_value();
    const bool in_flight_kept = st->timing.keeps_text();
    auto text = st->timing.take_text();
    const bool kept = s.keep_generated_text && in_flight_kept && text.size() <= kept_text_limit - kept_text_bytes;
    if (s.keep_generated_text && !kept) r.text_not_kept = true;
    if (kept) {
      kept_text_bytes += text.size();
      if (next_turn_needs) answers[st->request] = text;
      r.generated_text = std::move(text);
    } else if (next_turn_needs) {
      answers[st->request] = std::move(text);
    }
  };

  auto send = [&](std::size_t i) {
    const double now = client.now() - origin;
    const double due = std::max(queue.due(i), s.max_concurrency > 0 ? last_slot_freed : 0.0);
    if (!(closed_loop && !any_finished)) lateness_ms.push_back(std::max(0.0, now - due) * 1e3);
    if (first_send < 0) first_send = now;
    const auto endpoint = pick_endpoint();
    ++outstanding[endpoint];
    ++in_flight;
    request_record r;
    r.prompt_len = requests[i]->prompt_len;
    r.prompt_hash = requests[i]->prompt_hash;
    r.images = requests[i]->images;
    r.adapter = requests[i]->adapter;
    r.scheduled_s = queue.due(i);
    std::string body = requests[i]->body;
    if (requests[i]->session != no_session) {
      r.turn = requests[i]->turn;
      if (requests[i]->body_for_answers) {
        // The answers to this conversation's earlier turns, first turn first.
        std::vector<std::string> earlier;
        for (auto k = queue.previous_turn(i); k; k = queue.previous_turn(*k))
          earlier.insert(earlier.begin(), answers[*k]);
        auto turn = requests[i]->body_for_answers(earlier);
        body = std::move(turn.body);
        r.prompt_len = turn.prompt_len;
      }
    }
    r.sent_s = now;
    r.endpoint = s.base_urls[endpoint];
    result.records.push_back(r);
    auto st = std::make_shared<stream_state>();
    st->index = result.records.size() - 1;
    st->request = i;
    st->endpoint = endpoint;
    // The text is kept while in flight only where something reads it: the tokenizer's count,
    // the result file's texts (while their budget lasts), a conversation's next turn.
    const bool keep_for_file = s.keep_generated_text && kept_text_bytes < kept_text_limit;
    st->timing = request_timing(now, keep_for_file || s.tokenizer != nullptr || requests[i]->session != no_session);
    // The parser belongs to the state: it refers back to it by plain pointer (a shared_ptr
    // here would be a cycle, and every request would leak).
    st->parser = std::make_unique<sse_parser>([st = st.get(), &s, origin_copy = origin, &client, &socket_wait_ms,
                                               &timed_together, &token_events](const sse_event& e) {
      ++st->events;
      const auto chunk = parse_openai_chunk(e.data, s.api);
      if (chunk.malformed && st->failure_class.empty()) {
        st->failure_class = "malformed";
        st->failure = "an event that is not a completion chunk: " + server_text_excerpt(e.data, 120);
      }
      if (!chunk.error.empty() && st->failure_class.empty()) {
        st->failure_class = "server_error";
        st->failure = server_text_excerpt(chunk.error, 200);
      }
      if (chunk.has_choices && chunk.sim_sent_ns) {
        st->delays_ms.push_back((client.monotonic_ns(st->arrived_s) - static_cast<double>(*chunk.sim_sent_ns)) * 1e-6);
      }
      if (chunk.has_choices) {
        ++token_events;
        if (s.kernel_receive_stamps) socket_wait_ms.push_back((client.now() - st->arrived_s) * 1e3);
        if (st->arrived_s == st->last_token_arrived_s) ++timed_together;
        st->last_token_arrived_s = st->arrived_s;
      }
      st->timing.on_chunk(st->arrived_s - origin_copy, chunk);
    });
    http_request http;
    http.url = s.base_urls[endpoint] + s.endpoint;
    http.body = std::move(body);
    http.headers = s.headers;
    http.headers.emplace_back("Content-Type: application/json");
    http.headers.emplace_back("Expect:");  // no 100-continue round trip before large prompts
    http.timeout_s = s.timeout_s;
    http.stall_timeout_s = s.stall_timeout_s;
    http.ca_file = s.ca_file;
    http.verify_tls = s.verify_tls;
    client.start(
        http,
        [st, &s](std::string_view bytes, double arrived_s) {
          st->arrived_s = arrived_s;
          st->response_bytes += bytes.size();
          if (s.max_response_bytes > 0 && st->response_bytes > static_cast<std::size_t>(s.max_response_bytes)) {
            st->oversized = true;
            return false;  // drops the connection: nothing more of it is read
          }
          if (s.stream) {
            st->parser->feed(bytes);
            // Keep the start of the body: an error reply's message.
            if (st->body.size() < 1024) st->body.append(bytes.substr(0, 1024 - st->body.size()));
          } else {
            st->body.append(bytes);
          }
          return true;
        },
        [st, finish, &queue, &answers, &result, &dropped, origin](const transfer_result& t) mutable {
          st->status = t.http_status;
          finish(st, t);
          // A conversation goes on with the answer (finish kept it), or ends with the failure.
          const auto& record = result.records[st->index];
          // Its last turn done, or failed: no turn reads its earlier answers any more.
          if (!record.success || !queue.next_turn(st->request)) {
            for (auto k = queue.previous_turn(st->request); k; k = queue.previous_turn(*k))
              std::string().swap(answers[*k]);
          }
          dropped += queue.finished(st->request, record.success, t.end_s - origin).size();
        });
  };

  // A look at the point for a live line, every progress_interval_s.
  double next_look = s.progress_interval_s, last_look = 0;
  std::size_t events_at_last_look = 0;
  auto look = [&](double now) {
    load_progress p;
    p.total = requests.size();
    p.running = in_flight;
    p.elapsed_s = now;
    for (const auto& r : result.records) {
      if (r.success) ++p.done;
      if (!r.error_class.empty()) ++p.failed;
    }
    p.output_tokens_per_s =
        now > last_look ? static_cast<double>(token_events - events_at_last_look) / (now - last_look) : 0;
    events_at_last_look = token_events;
    last_look = now;
    s.on_progress(p);
  };
  const bool timed = s.duration_s > 0;
  bool sending = true;
  while ((sending && !queue.empty()) || in_flight > 0) {
    if (s.on_progress && s.progress_interval_s > 0 && client.now() - origin >= next_look) {
      const double now = client.now() - origin;
      look(now);
      while (next_look <= now) next_look += s.progress_interval_s;
    }
    if (cancel != nullptr && cancel->load()) {
      result.interrupted = true;
      client.cancel_all();
      break;
    }
    const double now = client.now() - origin;
    if (timed && sending && now >= s.duration_s) {
      sending = false;  // nothing more is sent; what is in flight has the grace period
      result.ended_by = "duration";
    }
    if (timed && !sending && now >= s.duration_s + s.grace_s) {
      grace_over = true;
      client.cancel_all();
      break;
    }
    auto slot_free = [&] { return s.max_concurrency <= 0 || in_flight < static_cast<std::size_t>(s.max_concurrency); };
    while (sending && queue.has_due(now) && slot_free()) send(queue.pop());
    double wake = now + 0.05;  // poll the cancel flag (and the progress clock) at least this often
    if (const auto next_due = queue.next_due(); sending && next_due && slot_free()) {
      wake = std::min(wake, *next_due);
    }
    if (timed) wake = std::min(wake, sending ? s.duration_s : s.duration_s + s.grace_s);
    client.run_until(origin + std::max(now, wake), false);
  }
  if (timed) {
    // Every arrival of the duration sent (an open loop), or the prepared requests used up.
    if (result.interrupted) {
      result.ended_by = "interrupted";
    } else if (result.ended_by.empty()) {
      result.ended_by = schedule_capped ? "num_prompts" : "duration";
    }
    // The requests cut at the end of the grace period leave the records: they are counted as
    // unfinished, not as failures (nor timed).
    result.unfinished = unfinished_records.size();
    std::vector<bool> cut(result.records.size(), false);
    for (const auto i : unfinished_records) cut[i] = true;
    std::vector<request_record> kept;
    kept.reserve(result.records.size() - unfinished_records.size());
    for (std::size_t i = 0; i < result.records.size(); ++i) {
      if (!cut[i]) kept.push_back(std::move(result.records[i]));
    }
    result.records = std::move(kept);
  }
  result.turns_dropped = dropped;
  // A point bounded by time sends what its duration allows: the prepared requests left over
  // were never due, not lost.
  result.not_sent = timed && !result.interrupted ? 0 : queue.unsent() - dropped;
  const double wall = client.now() - origin;
  // Over a point of a few milliseconds (every request refused at once) the thread's CPU time,
  // counted from before the first send, is no share of anything: it is not judged.
  constexpr double min_client_cpu_wall_s = 0.2;
  result.client_cpu = wall > 0 ? (thread_cpu_seconds() - cpu_start) / wall : 0;
  result.duration_s = first_send >= 0 ? last_end - first_send : 0;
  result.first_send_s = std::max(0.0, first_send);
  if (!lateness_ms.empty()) {
    result.lateness_p50_ms = core::percentile(lateness_ms, 50);
    result.lateness_p99_ms = core::percentile(lateness_ms, 99);
    result.lateness_max_ms = *std::max_element(lateness_ms.begin(), lateness_ms.end());
  }
  if (const auto host_cpu_after = platform::read_cpu_times(host_root); host_cpu_before && host_cpu_after) {
    if (const auto c = platform::competition_between(*host_cpu_before, *host_cpu_after,
                                                     platform::process_cpu_seconds() - process_cpu_start,
                                                     platform::clock_ticks_per_second())) {
      result.host_steal_percent = c->steal_percent;
      result.host_others_percent = c->others_percent;
    }
  }
  // The limit grows with the load: the mean gap between sends and the median E2EL.
  const auto limit =
      lateness_limit_for(s.max_lateness_p99_ms, mean_gap_ms(result.records), median_e2el_ms(result.records));
  result.lateness_limit_ms = limit.limit_ms;
  result.lateness_limit_basis = limit.basis;
  // With an infinite rate and no concurrency limit every request is due at once: the
  // lateness then measures how fast a burst leaves, not whether a schedule was kept.
  const bool timed_schedule = traced || s.ramp.enabled() || !std::isinf(s.request_rate) || s.max_concurrency > 0;
  if (timed_schedule && result.lateness_p99_ms > limit.limit_ms) {
    result.valid = false;
    result.invalid_reason = fmt::format("the client fell behind its schedule: p99 lateness {:.3f} ms > {:.3f} ms ({})",
                                        result.lateness_p99_ms, limit.limit_ms, limit.basis);
    if (result.host_steal_percent) {
      result.invalid_reason += fmt::format(
          "; meanwhile the hypervisor stole {:.1f} % and other processes used "
          "{:.1f} % of the host's CPU time",
          *result.host_steal_percent, *result.host_others_percent);
    }
  } else if (wall >= min_client_cpu_wall_s && result.client_cpu > s.max_client_cpu) {
    result.valid = false;
    result.invalid_reason =
        fmt::format("the client thread was saturated ({:.0f} % of a core)", 100 * result.client_cpu);
  }
  judge_reported_usage(result);
  result.token_events_timed_together = timed_together;
  const auto stamps = client.receive_stamps();
  result.kernel_stamped_share =
      stamps.deliveries > 0 ? static_cast<double>(stamps.kernel_stamped) / static_cast<double>(stamps.deliveries) : 0;
  if (!socket_wait_ms.empty()) {
    result.socket_wait_p50_ms = core::percentile(socket_wait_ms, 50);
    result.socket_wait_p99_ms = core::percentile(socket_wait_ms, 99);
  }
  if (!delivery_ms.empty()) {
    result.ground_truth = {{"stamped_token_events", delivery_ms.size()},
                           {"delivery_delay_p50_ms", core::percentile(delivery_ms, 50)},
                           {"delivery_delay_p99_ms", core::percentile(delivery_ms, 99)}};
    if (!itl_error_ms.empty()) {
      result.ground_truth["itl_error_p50_ms"] = core::percentile(itl_error_ms, 50);
      result.ground_truth["itl_error_p99_ms"] = core::percentile(itl_error_ms, 99);
    }
  }
  result.endpoints = endpoint_breakdown(result.records, s.base_urls);
  result.embedding_dimension = embedding_dimension.value();
  return result;
}

}  // namespace ironbench::serve
