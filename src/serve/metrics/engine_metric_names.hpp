// One schema for what inference servers report on /metrics: the common metrics ironbench
// summarises per load point, and, in one table, the series each engine (vLLM, SGLang, TGI,
// llama.cpp's server, TensorRT-LLM under Triton) publishes them under. Adding an engine or a
// renamed series is one row of that table.
#pragma once

#include <string>
#include <vector>

namespace ironbench::serve {

/// How a common metric's value at one scrape is formed from an engine's samples.
enum class series_source {
  gauge_sum,      ///< a gauge, summed over its label sets (and over endpoints): requests running
  gauge_mean,     ///< a gauge, averaged over its label sets (and endpoints): a usage fraction
  counter,        ///< a monotonic counter, summed: reported as its increase and rate
  counter_ratio,  ///< the increase of one counter over the increase of another: a hit rate
  /// the increase of one counter over the sum of its and another's increases: llama.cpp's
  /// cached prompt tokens against cached + processed ones (its prompt_tokens_total leaves the
  /// cached ones out)
  counter_share,
};

/// A metric of the common schema.
struct server_metric {
  const char* name;  ///< running_requests, kv_cache_usage_percent, generation_tokens ...
  const char* unit;  ///< of the value at one scrape (counters: of the increase)
  const char* description;
};

/// The common schema, in report order.
[[nodiscard]] const std::vector<server_metric>& server_metrics();

/// Where one engine publishes one common metric. Rows of one engine and metric are
/// alternatives, in order of preference (a renamed series and its older name).
struct engine_series {
  const char* engine;  ///< vllm, sglang, tgi, llama.cpp, tensorrt-llm
  const char* metric;  ///< a server_metric name
  series_source source;
  const char* series;       ///< the sample name (a counter's with its _total suffix)
  const char* selector;     ///< "label=value" the samples must carry, or ""
  const char* denominator;  ///< counter_ratio: the counter divided by; counter_share: the other part; else ""
  double scale;             ///< multiplies the value (fractions to percent: 100)
};

/// The table of every engine's series.
[[nodiscard]] const std::vector<engine_series>& engine_series_table();

/// The engines of the table, in order (the one whose series a scrape matches most is detected).
[[nodiscard]] std::vector<std::string> known_engines();

/// A per-request time histogram (seconds) that an engine publishes for one stage of a
/// request's life on the server: queue (arrival to scheduled), prefill (scheduled to first
/// token), decode (first token to last). ttft_breakdown.hpp reads them.
struct engine_histogram {
  const char* engine;  ///< vllm, sglang, tgi
  const char* stage;   ///< queue, prefill, decode
  const char* series;  ///< the histogram's name, without _bucket / _sum / _count
};

/// Every engine's stage histograms (only those the engine's documentation names).
[[nodiscard]] const std::vector<engine_histogram>& engine_histogram_table();

/// A counter of the seconds an engine spent in one stage, summed over its requests, for an
/// engine without stage histograms (llama.cpp's server): the counter's increase over the point
/// divided by the requests the point completed is the stage's mean time per request (a mean,
/// no percentiles). ttft_breakdown.hpp reads them.
struct engine_stage_counter {
  const char* engine;  ///< llama.cpp
  const char* stage;   ///< prefill, decode
  const char* series;  ///< the counter (seconds), with its _total suffix
};

/// Every engine's stage-seconds counters.
[[nodiscard]] const std::vector<engine_stage_counter>& engine_stage_counter_table();

}  // namespace ironbench::serve
