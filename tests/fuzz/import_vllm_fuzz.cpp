// libFuzzer target of the vllm importer: vLLM's serving benchmark result JSON (one object, an array, JSON Lines).
// See importer_fuzz.hpp for what counts as a finding. A valid case's result must hold together
// as a benchmark's does: a positive duration when requests completed; every mean, median and
// percentile of a latency within the duration; each TTFT statistic at most the same E2EL one;
// E2EL - TTFT consistent with TPOT x (output tokens - 1); the E2ELs at most the concurrency x
// the duration; throughputs the totals over the duration.
#include <string>

#include "core/json.hpp"
#include "importer_fuzz.hpp"

namespace {

using ironbench::json;
using ironbench::fuzz::at_most;

std::optional<double> number(const json& result, const std::string& key) {
  if (!result.contains(key) || !result.at(key).is_number()) return std::nullopt;
  return result.at(key).get<double>();
}

// "median" of "median_ttft_ms", "p99.9" of "p99.9_ttft_ms"; "" for std_ and any other key (vLLM's
// statistics: mean, median, std and pNN[.N]).
std::string statistic_of(const std::string& key, const std::string& metric) {
  const auto suffix = "_" + metric + "_ms";
  if (key.size() <= suffix.size() || key.compare(key.size() - suffix.size(), suffix.size(), suffix) != 0) return {};
  auto statistic = key.substr(0, key.size() - suffix.size());
  if (statistic == "mean" || statistic == "median") return statistic;
  if (statistic.size() < 2 || statistic[0] != 'p') return {};
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  };
  const auto dot = statistic.find('.');
  const bool percentile = dot == std::string::npos
                              ? digits(statistic.substr(1))
                              : digits(statistic.substr(1, dot - 1)) && digits(statistic.substr(dot + 1));
  return percentile ? statistic : std::string();
}

void check_result(const ironbench::core::case_result& c) {
  const auto it = c.notes.find("result");
  if (it == c.notes.end()) std::abort();
  const auto result = json::parse(it->second);
  const double completed = number(result, "completed").value_or(0);
  const auto duration = number(result, "duration");
  if (completed > 0 && duration && !(*duration > 0)) std::abort();
  if (duration && *duration > 0 && completed > 0) {
    for (const auto& [key, value] : result.items()) {
      if (!value.is_number()) continue;
      for (const char* metric : {"ttft", "tpot", "itl", "e2el"}) {
        if (!statistic_of(key, metric).empty() && !at_most(value.get<double>(), *duration * 1e3, 0.02, 0.02)) {
          std::abort();
        }
      }
    }
    for (const auto& [name, total] :
         {std::pair<const char*, std::optional<double>>{"output_throughput", number(result, "total_output_tokens")},
          {"request_throughput", completed}}) {
      const auto stated = number(result, name);
      if (stated && total && !ironbench::fuzz::near(*stated, *total / *duration, 0.02, 1e-6)) std::abort();
    }
  }
  for (const auto& [key, value] : result.items()) {
    const auto statistic = statistic_of(key, "ttft");
    if (statistic.empty() || !value.is_number()) continue;
    const auto e2el = number(result, statistic + "_e2el_ms");
    if (e2el && !at_most(value.get<double>(), *e2el, 0.02, 0.02)) std::abort();
  }
  const auto mean_ttft = number(result, "mean_ttft_ms"), mean_e2el = number(result, "mean_e2el_ms");
  const auto mean_tpot = number(result, "mean_tpot_ms"), std_tpot = number(result, "std_tpot_ms");
  const auto output = number(result, "total_output_tokens");
  if (mean_ttft && mean_e2el && mean_tpot && std_tpot && output && completed > 0 && *output > completed) {
    // The smallest TPOT (at least mean - std x sqrt(n - 1)) is at most the TPOT of all output tokens after each first.
    const double lowest = *mean_tpot - *std_tpot * std::sqrt(completed - 1);
    if (lowest > 0 && !at_most(lowest, completed * (*mean_e2el - *mean_ttft) / (*output - completed), 0.02, 0.02)) {
      std::abort();
    }
  }
  double concurrency = number(result, "max_concurrent_requests").value_or(0);
  if (concurrency <= 0) concurrency = number(result, "max_concurrency").value_or(0);
  if (mean_e2el && concurrency > 0 && duration && *duration > 0 && completed > 0 &&
      !at_most(*mean_e2el * completed, concurrency * *duration * 1e3, 0.02, 0.02)) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("vllm", data, size, check_result);
  return 0;
}
