#include "serve/metrics/engine_metric_names.hpp"

#include <algorithm>

namespace ironbench::serve {

const std::vector<server_metric>& server_metrics() {
  static const std::vector<server_metric> metrics = {
      {"running_requests", "requests", "requests the engine is running (in its batch)"},
      {"waiting_requests", "requests", "requests queued for a batch slot or KV-cache room"},
      {"kv_cache_usage_percent", "%", "share of the KV cache in use"},
      {"prefix_cache_hit_percent", "%", "share of prompt tokens found in the prefix cache"},
      {"preemptions", "requests", "requests preempted (evicted and recomputed or swapped)"},
      {"spec_decode_acceptance_percent", "%", "share of draft tokens the target model accepted"},
      {"prompt_tokens", "tokens", "prompt tokens processed (prefill)"},
      {"generation_tokens", "tokens", "tokens generated"},
  };
  return metrics;
}

const std::vector<engine_series>& engine_series_table() {
  using s = series_source;
  static const std::vector<engine_series> table = {
      // vLLM (V1 engine names first, then the V0 / older V1 names they replaced).
      {"vllm", "running_requests", s::gauge_sum, "vllm:num_requests_running", "", "", 1},
      {"vllm", "waiting_requests", s::gauge_sum, "vllm:num_requests_waiting", "", "", 1},
      {"vllm", "kv_cache_usage_percent", s::gauge_mean, "vllm:kv_cache_usage_perc", "", "", 100},
      {"vllm", "kv_cache_usage_percent", s::gauge_mean, "vllm:gpu_cache_usage_perc", "", "", 100},
      {"vllm", "prefix_cache_hit_percent", s::counter_ratio, "vllm:prefix_cache_hits_total", "",
       "vllm:prefix_cache_queries_total", 100},
      {"vllm", "prefix_cache_hit_percent", s::counter_ratio, "vllm:gpu_prefix_cache_hits_total", "",
       "vllm:gpu_prefix_cache_queries_total", 100},
      {"vllm", "prefix_cache_hit_percent", s::gauge_mean, "vllm:gpu_prefix_cache_hit_rate", "", "", 100},
      {"vllm", "preemptions", s::counter, "vllm:num_preemptions_total", "", "", 1},
      {"vllm", "spec_decode_acceptance_percent", s::counter_ratio, "vllm:spec_decode_num_accepted_tokens_total", "",
       "vllm:spec_decode_num_draft_tokens_total", 100},
      {"vllm", "spec_decode_acceptance_percent", s::gauge_mean, "vllm:spec_decode_draft_acceptance_rate", "", "", 100},
      {"vllm", "prompt_tokens", s::counter, "vllm:prompt_tokens_total", "", "", 1},
      {"vllm", "generation_tokens", s::counter, "vllm:generation_tokens_total", "", "", 1},
      // SGLang (--enable-metrics).
      {"sglang", "running_requests", s::gauge_sum, "sglang:num_running_reqs", "", "", 1},
      {"sglang", "waiting_requests", s::gauge_sum, "sglang:num_queue_reqs", "", "", 1},
      {"sglang", "kv_cache_usage_percent", s::gauge_mean, "sglang:token_usage", "", "", 100},
      {"sglang", "prefix_cache_hit_percent", s::gauge_mean, "sglang:cache_hit_rate", "", "", 100},
      {"sglang", "prompt_tokens", s::counter, "sglang:prompt_tokens_total", "", "", 1},
      {"sglang", "generation_tokens", s::counter, "sglang:generation_tokens_total", "", "", 1},
      // Hugging Face TGI (the router's metrics; token counts are histogram sums).
      {"tgi", "running_requests", s::gauge_sum, "tgi_batch_current_size", "", "", 1},
      {"tgi", "waiting_requests", s::gauge_sum, "tgi_queue_size", "", "", 1},
      {"tgi", "prompt_tokens", s::counter, "tgi_request_input_length_sum", "", "", 1},
      {"tgi", "generation_tokens", s::counter, "tgi_request_generated_tokens_sum", "", "", 1},
      // llama.cpp's llama-server (--metrics). Its builds of 2025-26 export no KV-cache usage
      // (kv_cache_usage_ratio and kv_cache_tokens were removed; n_tokens_max is a high-water
      // mark of one sequence, not a usage): the row serves the older builds that have it.
      // prompt_tokens_total counts the prompt tokens processed, the cached ones apart.
      {"llama.cpp", "running_requests", s::gauge_sum, "llamacpp:requests_processing", "", "", 1},
      {"llama.cpp", "waiting_requests", s::gauge_sum, "llamacpp:requests_deferred", "", "", 1},
      {"llama.cpp", "kv_cache_usage_percent", s::gauge_mean, "llamacpp:kv_cache_usage_ratio", "", "", 100},
      {"llama.cpp", "prefix_cache_hit_percent", s::counter_share, "llamacpp:prompt_tokens_cached_total", "",
       "llamacpp:prompt_tokens_total", 100},
      {"llama.cpp", "spec_decode_acceptance_percent", s::counter_ratio,
       "llamacpp:spec_decode_num_accepted_tokens_total", "", "llamacpp:spec_decode_num_draft_tokens_total", 100},
      {"llama.cpp", "prompt_tokens", s::counter, "llamacpp:prompt_tokens_total", "", "", 1},
      {"llama.cpp", "generation_tokens", s::counter, "llamacpp:tokens_predicted_total", "", "", 1},
      // TensorRT-LLM behind Triton's tensorrtllm backend.
      {"tensorrt-llm", "running_requests", s::gauge_sum, "nv_trt_llm_request_metrics", "request_type=active", "", 1},
      {"tensorrt-llm", "waiting_requests", s::gauge_sum, "nv_trt_llm_request_metrics", "request_type=waiting", "", 1},
      {"tensorrt-llm", "kv_cache_usage_percent", s::gauge_mean, "nv_trt_llm_kv_cache_block_metrics",
       "kv_cache_block_type=fraction", "", 100},
  };
  return table;
}

const std::vector<engine_histogram>& engine_histogram_table() {
  static const std::vector<engine_histogram> table = {
      // vLLM V1 (observed when a request finishes).
      {"vllm", "queue", "vllm:request_queue_time_seconds"},
      {"vllm", "prefill", "vllm:request_prefill_time_seconds"},
      {"vllm", "decode", "vllm:request_decode_time_seconds"},
      // SGLang (--enable-metrics): the queueing time only; prefill and decode are not per request.
      {"sglang", "queue", "sglang:queue_time_seconds"},
      // Hugging Face TGI: the queue only (its inference duration is prefill and decode together).
      {"tgi", "queue", "tgi_request_queue_duration"},
  };
  return table;
}

const std::vector<engine_stage_counter>& engine_stage_counter_table() {
  static const std::vector<engine_stage_counter> table = {
      // llama.cpp's server: the prompt seconds are the wall time of the batches that held prompt
      // tokens (prompts batched together count once); the generation seconds are each request's
      // time from the end of its prompt to its last token, added up.
      {"llama.cpp", "prefill", "llamacpp:prompt_seconds_total"},
      {"llama.cpp", "decode", "llamacpp:tokens_predicted_seconds_total"},
  };
  return table;
}

std::vector<std::string> known_engines() {
  std::vector<std::string> engines;
  for (const auto& row : engine_series_table()) {
    if (std::find(engines.begin(), engines.end(), row.engine) == engines.end()) engines.emplace_back(row.engine);
  }
  return engines;
}

}  // namespace ironbench::serve
