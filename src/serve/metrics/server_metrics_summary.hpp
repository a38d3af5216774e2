// What the servers reported during one load point, in the common schema
// (engine_metric_names.hpp): per metric the mean and max of a gauge over the scrapes, the
// increase and rate of a counter, the ratio of two counters' increases; a timeline of each at
// every scrape; and every raw scalar series as scraped.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/metrics/metrics_scraper.hpp"

namespace ironbench::serve {

/// The summary object stored per point (docs/serving-metrics.md, "Server metrics"):
///   urls, interval_s, origin_monotonic_ns (time 0 of t_s), scrapes, failed_scrapes, error
///   (the first failure), rejected_lines / first_problem (lines the parser could not read),
///   engine (detected: vllm, sglang, tgi, llama.cpp, tensorrt-llm; null when none matched),
///   stage_data (with an engine): whether the servers publish any per-request stage time
///   (engine_histogram_table, engine_stage_counter_table; ttft_breakdown.hpp reads them),
///   metrics: {name: {unit, series, mean, max}} for gauges and ratios (ratio mean: over the
///            whole point), {unit, series, increase, rate_per_s_mean, rate_per_s_max} for counters;
///            a ratio whose denominator never rose (speculative decoding off: no drafts) and a
///            gauge never read as a number are left out: the server does not use that feature,
///   timeline: {t_s: [...], name: [...]}: gauges as scraped, counters as the rate over the
///             interval before, ratios over the interval before (null where unknown),
///   raw: {t_s: [...], series: {"name{labels}": [...]}} every series except histogram buckets
///        (several URLs: the key starts with the URL's index, "1/").
/// With several URLs, gauges of requests and counters add up; fractions are averaged.
[[nodiscard]] json summarize_server_metrics(const std::vector<scrape_round>& rounds,
                                            const std::vector<std::string>& urls, std::int64_t origin_monotonic_ns,
                                            double interval_s);

/// The summary's headline numbers under flat names for result files and case metrics:
/// server_<metric>_mean / _max (gauges, ratios), server_<metric>_increase and
/// server_<metric>_per_s (counters).
[[nodiscard]] std::map<std::string, double> server_metric_values(const json& summary);

}  // namespace ironbench::serve
