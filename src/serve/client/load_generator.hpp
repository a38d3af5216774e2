// One load point of `ironbench serve`: requests sent on a precomputed schedule (and a
// concurrency limit) to one or more OpenAI-compatible endpoints, every stream timed as vLLM
// times it, and the client's own timing honesty measured: how late each send was against
// its schedule, and how busy the client thread was.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/client/openai_stream.hpp"
#include "serve/measures/serving_metrics.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"
#include "serve/workload/arrival_schedule.hpp"
#include "serve/workload/endpoint_kinds.hpp"

namespace ironbench::serve {

/// A later turn of a conversation, built when it is sent.
struct turn_request {
  std::string body;
  std::int64_t prompt_len = 0;
};

/// No conversation: a request on its own.
inline constexpr std::size_t no_session = static_cast<std::size_t>(-1);

/// A prepared request: the JSON body and the prompt length it carries.
struct prepared_request {
  std::string body;
  std::int64_t prompt_len = 0;
  std::int64_t max_tokens = 0;
  /// Multi-turn conversations: the conversation this request is a turn of (no_session: none),
  /// the turn (0: the first), and the user's pause between the previous turn's answer and this
  /// turn. A conversation's turns follow each other in the list. A later turn's body is made
  /// when it is sent, from the server's answers to the turns before it (`body_for_answers`).
  std::size_t session = no_session;
  int turn = 0;
  double think_s = 0;
  std::function<turn_request(const std::vector<std::string>& answers)> body_for_answers;
  /// When to send it, in seconds from the first request (a replayed trace); negative: the
  /// rate's schedule decides. Used only when every request of a point has one.
  double send_at_s = -1;
  /// The prompt's identity (prompt_identity.hpp), copied to the request's record; empty when
  /// not computed.
  std::string prompt_hash;
  /// Embeddings, rerank, score: the texts or documents in the body (the reply must hold as many).
  std::size_t items = 0;
  /// Chat: the synthetic images in the body (synthetic_images.hpp); prompt_len counts the text only.
  int images = 0;
  /// --lora-modules: the adapter named as the body's model (lora_adapters.hpp); empty without.
  std::string adapter;
};

enum class balance_policy { round_robin, least_outstanding };

/// A point in progress, for a live line (serve/point/progress_line.hpp).
struct load_progress {
  std::size_t total = 0;    ///< requests of the point
  std::size_t done = 0;     ///< completed
  std::size_t failed = 0;   ///< ended with an error
  std::size_t running = 0;  ///< in flight
  double elapsed_s = 0;
  double output_tokens_per_s = 0;  ///< token events received per second since the previous look
};

struct load_settings {
  std::vector<std::string> base_urls;  ///< "http://127.0.0.1:8000" (several: replicas)
  std::string endpoint = "/v1/completions";
  openai_api api = openai_api::completions;
  /// The kind of request (endpoint_kinds.hpp); a pooling kind's replies are checked and timed
  /// whole (pooling_reply.hpp), never streamed.
  endpoint_kind kind = endpoint_kind::completions;
  /// Pooling kinds: this point's texts or documents per request (--inputs-per-request).
  std::int64_t inputs_per_request = 1;
  bool stream = true;
  std::vector<std::string> headers;  ///< "Authorization: Bearer ..." etc.
  double request_rate = std::numeric_limits<double>::infinity();
  double burstiness = 1.0;
  /// A ramp-up of the rate over the point (arrival_schedule.hpp); request_rate is then unused.
  ramp_up ramp;
  /// A point bounded by time (--duration): requests are sent while less than this has passed
  /// since the schedule's start, then those in flight are waited for up to grace_s more; those
  /// still running then are cancelled and counted as unfinished (load_result), not as
  /// failures. 0: no bound (the point sends every request).
  double duration_s = 0;
  double grace_s = 30;
  double trace_speed = 1.0;  ///< a replayed trace's times are divided by this (2: twice as fast)
  int max_concurrency = 0;   ///< 0: unlimited
  std::uint64_t seed = 0;
  double timeout_s = 600;        ///< per request
  double stall_timeout_s = 120;  ///< no byte for this long fails a request
  balance_policy balance = balance_policy::round_robin;
  /// The floor of the p99 send lateness allowed before the point is INVALID; the limit grows
  /// with the load (lateness_limit.hpp). Not judged for an all-at-once burst (rate inf, no
  /// limit), nor for a closed loop's first burst (rate inf and a limit: the sends before the
  /// first completion, all due at once).
  double max_lateness_p99_ms = 1.0;
  double max_client_cpu = 0.95;  ///< share of one core beyond which the client is saturated
  std::string ca_file;           ///< https: CA certificates to verify servers with (empty: the system's)
  bool verify_tls = true;        ///< https: false accepts any certificate
  /// Token times from the kernel's receive stamps (false: when the client reads the bytes).
  bool kernel_receive_stamps = true;
  /// Counts the output text's tokens (compared with usage; used when the server reports none).
  const bpe_tokenizer* tokenizer = nullptr;
  /// A response of more bytes than this fails as class "oversized", its connection dropped
  /// (0: no limit). In flight, a response costs at most a few times this in memory.
  std::int64_t max_response_bytes = std::int64_t{64} << 20;
  /// Keep completed requests' texts in their records (--save-detailed writes them), up to
  /// max_kept_text_bytes in all. Without it no text is kept in a record; a conversation's
  /// answers are kept apart while a later turn of it still needs them (it sends them).
  bool keep_generated_text = false;
  /// The most bytes of text kept in the records of a point (0: no limit). A completed request
  /// whose text would go past it keeps its record without the text (text_not_kept).
  /// Several client ranks share it.
  std::int64_t max_kept_text_bytes = std::int64_t{256} << 20;
  /// Called every `progress_interval_s` while the point runs (not at all when empty or 0).
  std::function<void(const load_progress&)> on_progress;
  double progress_interval_s = 0;
  /// Client ranks (mpirun): this process sends requests i with i % ranks == rank of the
  /// point's schedule, and max_concurrency is already its share.
  int rank = 0, ranks = 1;
  /// When the schedule's time 0 falls, on the wall clock (Unix seconds): ranks agree on one
  /// moment. 0: a moment from now.
  double start_at_unix_s = 0;
};

struct load_result {
  std::vector<request_record> records;   ///< one per request sent (in send order)
  std::int64_t origin_monotonic_ns = 0;  ///< time 0 of the records' times, on CLOCK_MONOTONIC
  double origin_unix_s = 0;              ///< the same moment on the wall clock (merging client ranks)
  double first_send_s = 0;               ///< the first send, from time 0
  double duration_s = 0;                 ///< first send to last completion
  double lateness_p50_ms = 0, lateness_p99_ms = 0, lateness_max_ms = 0;
  double lateness_limit_ms = 0;      ///< what p99 lateness was judged against
  std::string lateness_limit_basis;  ///< how that limit was reached
  /// What else ran on the host's CPUs during the point (percent of all CPU time): stolen by the
  /// hypervisor, used by other processes. Absent where /proc/stat cannot be read.
  std::optional<double> host_steal_percent, host_others_percent;
  double client_cpu = 0;  ///< client thread CPU time / wall time
  /// Share of response reads timed by the kernel's receive stamp (the rest: when read).
  double kernel_stamped_share = 0;
  /// How long token events waited in their sockets before the client parsed them (p50/p99,
  /// ms): time the kernel stamps keep out of TTFT and ITL.
  double socket_wait_p50_ms = 0, socket_wait_p99_ms = 0;
  /// Token events that reached the client together with the stream's next one, so both carry
  /// the later time (their gap reads as 0): the client fell a whole token behind.
  std::size_t token_events_timed_together = 0;
  bool valid = true;
  std::string invalid_reason;
  bool interrupted = false;
  std::size_t not_sent = 0;
  /// A point bounded by time: requests still in flight when the grace period ended, cancelled
  /// and left out of the records (and of every metric), and what ended the sending:
  /// "duration", "num_prompts" when every prepared request was sent before it, or
  /// "interrupted" (Ctrl-C).
  std::size_t unfinished = 0;
  std::string ended_by;
  /// Turns never sent because an earlier turn of their conversation failed.
  std::size_t turns_dropped = 0;
  json endpoints = json::object();  ///< per base URL: requests, completed, failed, mean TTFT
  /// Against a server that stamps its send times (serve-sim on this host): token events seen,
  /// delivery delay (receive - send) and the client's ITL error |measured gap - sent gap|,
  /// p50/p99 in ms. Empty when the server sends no stamps.
  json ground_truth = json::object();
  /// Several client ranks (client_ranks.hpp): each rank's requests, lateness and CPU.
  json ranks = nullptr;
  /// Embeddings: the length of every vector the point received (0: none, or not embeddings).
  std::size_t embedding_dimension = 0;
};

/// Runs the point. `cancel` (Ctrl-C) stops sending, cancels what is in flight (recorded as
/// failed, class "cancelled") and returns what was measured.
[[nodiscard]] load_result run_load(const std::vector<prepared_request>& requests, const load_settings& settings,
                                   const std::atomic<bool>* cancel);

/// Per base URL: requests, completed, failed and mean TTFT (ms) of `records`.
[[nodiscard]] json endpoint_breakdown(const std::vector<request_record>& records, const std::vector<std::string>& urls);

/// The failure class of an HTTP status: http_429, http_4xx, http_5xx, http_other.
[[nodiscard]] std::string http_error_class(long status);

}  // namespace ironbench::serve
