#include "results/cost.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string_view>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "core/text.hpp"
#include "core/text_match.hpp"

namespace ironbench::results {
namespace {

const char* const throughput_metrics[] = {
    "output_throughput", "total_token_throughput", "tokens_per_s", "tflops", "busbw", "bandwidth",
    "bw_average",        "samples_per_s",          "throughput"};

bool is_token_rate(const std::string& metric) {
  return metric == "output_throughput" || metric == "total_token_throughput" || metric == "tokens_per_s";
}

// "2.50", ".5", "3": digits with at most one decimal point, a digit last.
bool is_plain_decimal(std::string_view text) {
  return !text.empty() && is_digit(text.back()) && text.find_first_not_of("0123456789.") == std::string_view::npos &&
         text.find('.') == text.rfind('.');
}

}  // namespace

price parse_price(const std::string& text) {
  auto amount = trim(text);
  bool per_gpu = false;
  for (const std::string_view unit : {"/gpu", "/node"}) {
    if (amount.ends_with(unit)) {
      amount = trim(amount.substr(0, amount.size() - unit.size()));
      per_gpu = unit == "/gpu";
      break;
    }
  }
  const double value = is_plain_decimal(amount) ? std::strtod(std::string(amount).c_str(), nullptr) : 0;
  if (!(value > 0) || !std::isfinite(value)) {
    throw usage_error(fmt::format("--price-per-hour '{}' is not a positive USD amount like 2.50 or 2.50/gpu",
                                  text.size() > 40 ? text.substr(0, 40) + "..." : text));
  }
  return {value, per_gpu};
}

std::optional<int> gpu_count(const core::run_result& run) {
  if (const auto it = run.tags.find("gpus"); it != run.tags.end()) {
    try {
      const int n = std::stoi(it->second);
      if (n > 0) return n;
    } catch (const std::exception&) {
    }
    throw usage_error(fmt::format("tag gpus={} is not a positive number", it->second));
  }
  int gpus = 0;
  for (const auto& d : run.devices) gpus += core::is_gpu(d) ? 1 : 0;
  if (gpus > 0) return gpus;
  if (run.host.is_object() && run.host.contains("gpus") && run.host.at("gpus").is_number_integer()) {
    return run.host.at("gpus").get<int>();
  }
  return std::nullopt;
}

std::vector<cost_row> cost_rows(const std::vector<comparison_side>& sides, const std::vector<price>& prices) {
  if (prices.size() != 1 && prices.size() != sides.size()) {
    throw usage_error(fmt::format("--price-per-hour needs one price for every side or {} prices (one per side), not {}",
                                  sides.size(), prices.size()));
  }
  std::vector<cost_row> rows;
  for (std::size_t s = 0; s < sides.size(); ++s) {
    const auto& p = prices.size() == 1 ? prices[0] : prices[s];
    for (const auto& run : sides[s].runs) {
      double node_price = p.usd_per_hour;
      if (p.per_gpu) {
        const auto gpus = gpu_count(run);
        if (!gpus) {
          throw usage_error(
              fmt::format("'{}': a per-GPU price needs the GPU count: tag the run with --tag gpus=N", sides[s].label));
        }
        node_price *= *gpus;
      }
      for (const auto& c : run.cases) {
        if (c.status != core::case_status::valid) continue;
        for (const char* name : throughput_metrics) {
          const auto* m = c.find_metric(name);
          if (m == nullptr || m->value <= 0) continue;
          cost_row row{sides[s].label, c.benchmark, c.params.label(),      m->name,     m->unit,
                       m->value,       node_price,  m->value / node_price, std::nullopt};
          if (is_token_rate(m->name)) row.usd_per_million_tokens = node_price / (m->value * 3600) * 1e6;
          rows.push_back(std::move(row));
          break;
        }
      }
    }
  }
  return rows;
}

}  // namespace ironbench::results
