// Prometheus' text exposition format (version 0.0.4, and the OpenMetrics lines a server may
// mix in): what an inference server answers on GET /metrics. Counters, gauges, histograms and
// summaries all arrive as samples: a metric name, labels and a value.
//
// The parser never throws and never reads past its input: a line it cannot read is counted
// and skipped (with the first problem kept), so one odd line does not lose a scrape.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironbench::serve {

/// One sample line: `name{label="value",...} value [timestamp]`.
struct prometheus_sample {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;  ///< in the order written, values unescaped
  double value = 0;                                         ///< NaN, +Inf and -Inf are read as such

  /// The value of label `key`, or nullptr when the sample has none.
  [[nodiscard]] const std::string* label(std::string_view key) const;
  /// `name{k="v",...}` with the labels sorted: a stable identity of the series.
  [[nodiscard]] std::string series_key() const;
};

struct prometheus_exposition {
  std::vector<prometheus_sample> samples;
  std::map<std::string, std::string> types;  ///< metric family -> counter, gauge, histogram, summary, untyped
  std::size_t rejected_lines = 0;            ///< lines that are neither comments nor samples
  std::string first_problem;                 ///< "line 3: ..." for the first rejected line
  std::size_t sample_lines = 0;              ///< lines that are not comments nor blank, kept or not
};

/// Parses a whole /metrics answer.
[[nodiscard]] prometheus_exposition parse_prometheus_text(std::string_view text);

/// Parses a whole /metrics answer, keeping only the samples whose metric name `keep` accepts:
/// the other lines are counted (sample_lines) but neither read further nor stored, so an answer
/// of a million series costs the memory of the few kept. Rejected lines are those kept by
/// name that cannot be read, and lines without a metric name.
[[nodiscard]] prometheus_exposition parse_prometheus_text(std::string_view text,
                                                          const std::function<bool(std::string_view)>& keep);

}  // namespace ironbench::serve
