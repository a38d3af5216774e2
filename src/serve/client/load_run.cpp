#include "serve/client/load_run.hpp"

#include <sys/resource.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include "core/text.hpp"
#include "serve/client/utf8_repair.hpp"
#include "serve/workload/arrival_schedule.hpp"

namespace ironbench::serve {

load_run::load_run(const std::vector<prepared_request>& all_requests, const load_settings& settings,
                   const std::atomic<bool>* cancel)
    : all_requests_(all_requests),
      s_(settings),
      cancel_(cancel),
      timed_(settings.duration_s > 0),
      outstanding_(settings.base_urls.size(), 0),
      kept_text_limit_(settings.max_kept_text_bytes > 0 ? static_cast<std::size_t>(settings.max_kept_text_bytes)
                                                        : std::numeric_limits<std::size_t>::max()),
      next_look_(settings.progress_interval_s),
      client_(settings.kernel_receive_stamps) {}

load_result load_run::run() {
  prepare();
  start_clocks();
  send_all();
  drain();
  finish();
  return std::move(result_);
}

double load_run::thread_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

// Whether a Content-Type names an event stream ("text/event-stream; charset=utf-8").
bool load_run::is_event_stream(const std::string& content_type) {
  return ascii_lower(content_type).rfind("text/event-stream", 0) == 0;
}

// The start of a server's text for an error message: at most `limit` bytes, valid UTF-8.
std::string load_run::server_text_excerpt(std::string_view text, std::size_t limit) {
  return repaired_utf8(text.substr(0, limit));
}

void load_run::prepare() {
  // The requests that start something: single requests and the first of each conversation's
  // turns present; only they follow the schedule (later turns follow their predecessors).
  std::vector<std::size_t> starters;
  std::vector<bool> starts(all_requests_.size(), false);
  {
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < all_requests_.size(); ++i) {
      const auto session = all_requests_[i].session;
      if (session != no_session && !seen.insert(session).second) continue;
      starts[i] = true;
      starters.push_back(i);
    }
  }
  // A trace's own times (from its first request, scaled), else the rate's schedule.
  traced_ = !all_requests_.empty() && std::all_of(all_requests_.begin(), all_requests_.end(),
                                                  [](const prepared_request& r) { return r.send_at_s >= 0; });
  const auto full = full_schedule(starters.size());
  // Several client ranks: this one sends every ranks-th request (or conversation) of the one
  // schedule, so that together they send exactly what one client would. The schedule times the
  // requests that start something: single requests and first turns.
  std::size_t starter = 0;
  for (std::size_t i = 0; i < all_requests_.size(); ++i) {
    const auto& r = all_requests_[i];
    const std::size_t unit = r.session == no_session ? i : r.session;
    if (starts[i]) ++starter;
    if (static_cast<int>(unit % static_cast<std::size_t>(std::max(1, s_.ranks))) != s_.rank) continue;
    requests_.push_back(&r);
    if (starts[i]) schedule_.push_back(full[traced_ ? i : starter - 1]);
  }
  queue_.emplace(requests_, schedule_);
  answers_.resize(requests_.size());
  result_.records.reserve(requests_.size());
  // A closed loop (no rate, a concurrency limit) starts with a burst: its first requests are
  // all due at once and leave one after another. How fast a burst leaves is no schedule kept
  // or missed, so their lateness is not judged (nor counted); from the first completion on, a
  // send is due when a slot frees.
  closed_loop_ = !traced_ && !s_.ramp.enabled() && std::isinf(s_.request_rate) && s_.max_concurrency > 0;
}

// The send times of the whole point's `starters` (every rank's): the trace's, the duration's
// arrivals, the ramp-up's or the rate's.
std::vector<double> load_run::full_schedule(std::size_t starters) {
  std::vector<double> full;
  if (traced_) {
    for (const auto& r : all_requests_)
      full.push_back((r.send_at_s - all_requests_.front().send_at_s) / s_.trace_speed);
    check_schedule_span(full, fmt::format("the trace's times at --trace-speed {:g}", s_.trace_speed));
  } else if (s_.duration_s > 0) {
    // One arrival more than the requests prepared: whether they fall short of the duration's.
    full = timed_arrival_times(s_.duration_s, starters + 1, s_.request_rate, s_.ramp, s_.burstiness, s_.seed);
    schedule_capped_ = full.size() > starters;
    // Requests beyond the arrivals of the duration are never due.
    full.resize(starters, std::numeric_limits<double>::infinity());
  } else if (s_.ramp.enabled()) {
    full = ramp_arrival_times(starters, s_.ramp, s_.burstiness, s_.seed);
  } else {
    full = arrival_times(starters, s_.request_rate, s_.burstiness, s_.seed);
  }
  return full;
}

// Schedule time 0: a moment from now, or the moment the ranks agreed on (now, when that has
// passed already: the lateness then shows it); and the CPU clocks the verdict reads.
void load_run::start_clocks() {
  const double unix_now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const double lead = s_.start_at_unix_s > 0 ? std::max(0.0, s_.start_at_unix_s - unix_now) : 0.005;
  origin_ = client_.now() + lead;
  result_.origin_monotonic_ns = static_cast<std::int64_t>(client_.monotonic_ns(origin_));
  result_.origin_unix_s = unix_now + lead;
  cpu_start_ = thread_cpu_seconds();
  host_cpu_before_ = platform::read_cpu_times(host_root_);
  process_cpu_start_ = platform::process_cpu_seconds();
}

// Sends every request when it is due (and a slot is free), until all are answered, the
// duration and its grace period end, or `cancel` is set.
void load_run::send_all() {
  auto& queue = *queue_;
  while ((sending_ && !queue.empty()) || in_flight_ > 0) {
    if (s_.on_progress && s_.progress_interval_s > 0 && client_.now() - origin_ >= next_look_) {
      const double now = client_.now() - origin_;
      look(now);
      while (next_look_ <= now) next_look_ += s_.progress_interval_s;
    }
    if (cancel_ != nullptr && cancel_->load()) {
      result_.interrupted = true;
      client_.cancel_all();
      break;
    }
    const double now = client_.now() - origin_;
    if (timed_ && sending_ && now >= s_.duration_s) {
      sending_ = false;  // nothing more is sent; what is in flight has the grace period
      result_.ended_by = "duration";
    }
    if (timed_ && !sending_ && now >= s_.duration_s + s_.grace_s) {
      grace_over_ = true;
      client_.cancel_all();
      break;
    }
    auto slot_free = [&] {
      return s_.max_concurrency <= 0 || in_flight_ < static_cast<std::size_t>(s_.max_concurrency);
    };
    while (sending_ && queue.has_due(now) && slot_free()) send(queue.pop());
    double wake = now + 0.05;  // poll the cancel flag (and the progress clock) at least this often
    if (const auto next_due = queue.next_due(); sending_ && next_due && slot_free()) {
      wake = std::min(wake, *next_due);
    }
    if (timed_) wake = std::min(wake, sending_ ? s_.duration_s : s_.duration_s + s_.grace_s);
    client_.run_until(origin_ + std::max(now, wake), false);
  }
}

std::size_t load_run::pick_endpoint() {
  if (s_.balance == balance_policy::round_robin) return round_robin_++ % s_.base_urls.size();
  return static_cast<std::size_t>(std::min_element(outstanding_.begin(), outstanding_.end()) - outstanding_.begin());
}

void load_run::send(std::size_t i) {
  const double now = client_.now() - origin_;
  const double due = std::max(queue_->due(i), s_.max_concurrency > 0 ? last_slot_freed_ : 0.0);
  if (!(closed_loop_ && !any_finished_)) lateness_ms_.push_back(std::max(0.0, now - due) * 1e3);
  if (first_send_ < 0) first_send_ = now;
  const auto endpoint = pick_endpoint();
  ++outstanding_[endpoint];
  ++in_flight_;
  std::string body;
  result_.records.push_back(record_of(i, now, endpoint, body));
  auto st = std::make_shared<load_stream_state>();
  st->index = result_.records.size() - 1;
  st->request = i;
  st->endpoint = endpoint;
  // The text is kept while in flight only where something reads it: the tokenizer's count,
  // the result file's texts (while their budget lasts), a conversation's next turn.
  const bool keep_for_file = s_.keep_generated_text && kept_text_bytes_ < kept_text_limit_;
  st->timing = request_timing(now, keep_for_file || s_.tokenizer != nullptr || requests_[i]->session != no_session);
  // The parser belongs to the state: it refers back to it by plain pointer (a shared_ptr
  // here would be a cycle, and every request would leak).
  st->parser = std::make_unique<sse_parser>([this, state = st.get()](const sse_event& e) { on_event(*state, e); });
  start_transfer(st, std::move(body));
}

// Request `i`'s record as it is sent at `now` to `endpoint`, and its `body` (a conversation's
// later turn: made now from the answers to its earlier turns).
request_record load_run::record_of(std::size_t i, double now, std::size_t endpoint, std::string& body) const {
  request_record r;
  const auto& request = *requests_[i];
  r.prompt_len = request.prompt_len;
  r.prompt_hash = request.prompt_hash;
  r.images = request.images;
  r.adapter = request.adapter;
  r.scheduled_s = queue_->due(i);
  body = request.body;
  if (request.session != no_session) {
    r.turn = request.turn;
    if (request.body_for_answers) {
      // The answers to this conversation's earlier turns, first turn first.
      std::vector<std::string> earlier;
      for (auto k = queue_->previous_turn(i); k; k = queue_->previous_turn(*k))
        earlier.insert(earlier.begin(), answers_[*k]);
      auto turn = request.body_for_answers(earlier);
      body = std::move(turn.body);
      r.prompt_len = turn.prompt_len;
    }
  }
  r.sent_s = now;
  r.endpoint = s_.base_urls[endpoint];
  return r;
}

void load_run::start_transfer(const std::shared_ptr<load_stream_state>& st, std::string body) {
  http_request http;
  http.url = s_.base_urls[st->endpoint] + s_.endpoint;
  http.body = std::move(body);
  http.headers = s_.headers;
  http.headers.emplace_back("Content-Type: application/json");
  http.headers.emplace_back("Expect:");  // no 100-continue round trip before large prompts
  http.timeout_s = s_.timeout_s;
  http.stall_timeout_s = s_.stall_timeout_s;
  http.ca_file = s_.ca_file;
  http.verify_tls = s_.verify_tls;
  client_.start(
      http, [this, st](std::string_view bytes, double arrived_s) { return on_bytes(*st, bytes, arrived_s); },
      [this, st](const transfer_result& t) { on_done(st, t); });
}

// One SSE event of a stream: its chunk timed, its failures and the server's send stamps noted.
void load_run::on_event(load_stream_state& st, const sse_event& e) {
  ++st.events;
  const auto chunk = parse_openai_chunk(e.data, s_.api);
  if (chunk.malformed && st.failure_class.empty()) {
    st.failure_class = "malformed";
    st.failure = "an event that is not a completion chunk: " + server_text_excerpt(e.data, 120);
  }
  if (!chunk.error.empty() && st.failure_class.empty()) {
    st.failure_class = "server_error";
    st.failure = server_text_excerpt(chunk.error, 200);
  }
  if (chunk.has_choices && chunk.sim_sent_ns) {
    st.delays_ms.push_back((client_.monotonic_ns(st.arrived_s) - static_cast<double>(*chunk.sim_sent_ns)) * 1e-6);
  }
  if (chunk.has_choices) {
    ++token_events_;
    if (s_.kernel_receive_stamps) socket_wait_ms_.push_back((client_.now() - st.arrived_s) * 1e3);
    if (st.arrived_s == st.last_token_arrived_s) ++timed_together_;
    st.last_token_arrived_s = st.arrived_s;
  }
  st.timing.on_chunk(st.arrived_s - origin_, chunk);
}

// Bytes of a response, `arrived_s` on the client's clock; false ends the transfer (oversized).
bool load_run::on_bytes(load_stream_state& st, std::string_view bytes, double arrived_s) const {
  st.arrived_s = arrived_s;
  st.response_bytes += bytes.size();
  if (s_.max_response_bytes > 0 && st.response_bytes > static_cast<std::size_t>(s_.max_response_bytes)) {
    st.oversized = true;
    return false;  // drops the connection: nothing more of it is read
  }
  if (s_.stream) {
    st.parser->feed(bytes);
    // Keep the start of the body: an error reply's message.
    if (st.body.size() < 1024) st.body.append(bytes.substr(0, 1024 - st.body.size()));
  } else {
    st.body.append(bytes);
  }
  return true;
}

// A transfer ended: its record made, and its conversation continued or ended.
void load_run::on_done(const std::shared_ptr<load_stream_state>& st, const transfer_result& t) {
  st->status = t.http_status;
  receive(*st, t);
  // A conversation goes on with the answer (receive kept it), or ends with the failure.
  const auto& record = result_.records[st->index];
  // Its last turn done, or failed: no turn reads its earlier answers any more.
  if (!record.success || !queue_->next_turn(st->request)) {
    for (auto k = queue_->previous_turn(st->request); k; k = queue_->previous_turn(*k))
      std::string().swap(answers_[*k]);
  }
  dropped_ += queue_->finished(st->request, record.success, t.end_s - origin_).size();
}

// A look at the point for a live line.
void load_run::look(double now) {
  load_progress p;
  p.total = requests_.size();
  p.running = in_flight_;
  p.elapsed_s = now;
  for (const auto& r : result_.records) {
    if (r.success) ++p.done;
    if (!r.error_class.empty()) ++p.failed;
  }
  p.output_tokens_per_s =
      now > last_look_ ? static_cast<double>(token_events_ - events_at_last_look_) / (now - last_look_) : 0;
  events_at_last_look_ = token_events_;
  last_look_ = now;
  s_.on_progress(p);
}

}  // namespace ironbench::serve
