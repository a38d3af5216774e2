// The model of an inference engine behind `ironbench serve-sim`: a simulation, not an engine.
// It schedules like a continuous-batching server (vLLM): requests wait in a queue until a
// sequence slot (max_num_seqs) and KV-cache room for prompt + max_tokens are free; each
// engine step prefills the requests admitted in it and decodes one token for every running
// sequence; the step lasts prefill tokens / prefill rate + decode_base + decode_per_seq x
// running sequences (optionally with random jitter), plus each LoRA adapter's step cost once
// for every distinct adapter among the running sequences. A request's prompt tokens found in
// the prefix cache (sim_prefix_cache.hpp) are not prefilled: they cost no step time, though
// they still take KV-cache room. Tokens are emitted at the end of a step.
// With no jitter the times are exact, so a client's measurements can be checked against them:
// a lone request with P prompt tokens sees TTFT = P / prefill_rate + base + per_seq and then
// one token every base + per_seq.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <vector>

namespace ironbench::serve {

struct sim_settings {
  double prefill_tokens_per_s = 50000;     ///< prompt tokens processed per second
  double decode_base_ms = 8;               ///< step time with no sequence running
  double decode_per_seq_ms = 0.05;         ///< added per running sequence
  int max_num_seqs = 256;                  ///< sequences decoded together at most
  std::int64_t kv_cache_tokens = 1 << 20;  ///< prompt + output tokens held at once
  double jitter = 0;                       ///< relative standard deviation of step times (0: exact)
  /// Per LoRA adapter (sim_request::adapter indexes it): ms a step lasts longer when a running
  /// sequence uses the adapter (once per adapter, however many of its sequences run).
  std::vector<double> adapter_step_cost_ms;
  std::uint64_t seed = 0;
};

struct sim_request {
  std::uint64_t id = 0;
  std::int64_t prompt_tokens = 0;
  std::int64_t max_tokens = 1;
  int adapter = -1;                ///< the LoRA adapter it uses (-1: the base model)
  std::int64_t cached_tokens = 0;  ///< prompt tokens found in the prefix cache: not prefilled
};

/// A token produced at the end of a step.
struct sim_emission {
  std::uint64_t id;
  std::int64_t token_index;  ///< 0 for the first output token
  bool finished;             ///< the request reached max_tokens
};

struct sim_step {
  double duration_s = 0;
  std::vector<sim_emission> emissions;
  std::size_t admitted = 0;  ///< requests prefilled in this step
};

class sim_engine {
 public:
  explicit sim_engine(const sim_settings& settings);

  /// Queues a request. False when it can never fit (prompt + max_tokens > the KV cache).
  [[nodiscard]] bool submit(const sim_request& request);
  /// Drops a request (the client went away), freeing its slot and KV cache.
  void cancel(std::uint64_t id);
  /// Plans the next step: admissions, its duration and what it emits. nullopt when idle.
  /// The emissions take effect (and finished requests leave) when the step is planned.
  [[nodiscard]] std::optional<sim_step> next_step();

  [[nodiscard]] std::size_t waiting() const { return waiting_.size(); }
  [[nodiscard]] std::size_t running() const { return running_.size(); }
  [[nodiscard]] std::int64_t kv_tokens_used() const { return kv_used_; }

 private:
  struct sequence {
    sim_request request;
    std::int64_t generated = 0;
  };

  sim_settings settings_;
  std::deque<sim_request> waiting_;
  std::vector<sequence> running_;
  std::int64_t kv_used_ = 0;
  std::mt19937_64 random_;
};

}  // namespace ironbench::serve
