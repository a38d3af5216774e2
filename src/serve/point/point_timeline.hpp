// A load point over time, for the report's timeline: the client's output tokens per second in
// consecutive windows, beside what the server reported at each scrape.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// Output tokens the client received per second in windows of `window_s` from time 0 (the
/// records' clock) to `duration_s`: each token event's tokens count at its arrival (a
/// request's output tokens spread evenly over its events).
[[nodiscard]] std::vector<double> client_output_rate(const std::vector<request_record>& records, double duration_s,
                                                     double window_s);

/// The case series of a point's timeline: client_t_s (each window's end) and
/// client_output_tokens_per_s; with a server summary (server_metrics_summary.hpp) that found an
/// engine, server_t_s and server_<metric> for each metric of its timeline (NaN where unknown).
[[nodiscard]] std::map<std::string, std::vector<double>> point_timeline(const std::vector<request_record>& records,
                                                                        double duration_s, double window_s,
                                                                        const json& server_summary);

}  // namespace ironbench::serve
