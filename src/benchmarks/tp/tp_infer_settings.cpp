#include "benchmarks/tp/tp_infer_settings.hpp"

#include <fmt/format.h>

#include <variant>

#include "core/error.hpp"
#include "core/sweep.hpp"

namespace ironbench::benchmarks {
namespace {

std::vector<std::int64_t> integers_of(const core::axis& axis) {
  std::vector<std::int64_t> values;
  for (const auto& v : axis.values) values.push_back(std::get<std::int64_t>(v));
  return values;
}

}  // namespace

void parse_tp_infer_sizes(const std::string& batch, const std::string& hidden, tp_infer_settings& settings) {
  std::vector<core::axis> axes = {core::integer_axis("batch", {128, 512, 2048}, "rows of X"),
                                  core::integer_axis("hidden", {1024}, "H (F = 4 H)")};
  axes = core::apply_overrides(
      "tp_infer", axes, {core::parse_axis_override("batch=" + batch), core::parse_axis_override("hidden=" + hidden)});
  settings.batches = integers_of(axes.at(0));
  settings.hidden_sizes = integers_of(axes.at(1));
}

void check_tp_iterations(const tp_infer_settings& settings) {
  if (settings.iterations < 1 || settings.warmup_iterations < 0) {
    throw usage_error("need --iters >= 1 and --warmup_iters >= 0");
  }
}

void check_tp_sizes(const tp_infer_settings& settings, int ranks) {
  for (const auto batch : settings.batches) {
    for (const auto hidden : settings.hidden_sizes) {
      if (batch < 1 || hidden < 1) throw usage_error("batch and hidden must be positive");
      if ((4 * hidden) % ranks != 0) {
        throw usage_error(fmt::format("F = 4 x hidden = {} does not split over {} ranks", 4 * hidden, ranks));
      }
    }
  }
}

}  // namespace ironbench::benchmarks
