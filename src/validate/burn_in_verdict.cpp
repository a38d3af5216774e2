#include "validate/burn_in_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"

namespace ironbench::validate {
namespace {

double median_of(std::span<const double> values) { return core::percentile(values, 50); }

}  // namespace

void check_bounds(const burn_in_bounds& b) {
  if (!(b.max_drop > 0 && b.max_drop < 1)) {
    throw usage_error(fmt::format("--max-drop takes a percentage above 0 and below 100, not {:g}", b.max_drop * 100));
  }
  if (!(b.max_cv > 0 && b.max_cv < 1)) {
    throw usage_error(fmt::format("--max-cv takes a percentage above 0 and below 100, not {:g}", b.max_cv * 100));
  }
}

std::size_t reference_intervals(std::size_t intervals) { return std::clamp<std::size_t>(intervals / 3, 1, 3); }

throughput_judgement judge_throughput(const std::vector<double>& values, const burn_in_bounds& b) {
  throughput_judgement j;
  if (values.size() < 2) {
    j.rule = fmt::format("{} interval(s): too few to judge a drop or a spread", values.size());
    return j;
  }
  const auto k = reference_intervals(values.size());
  const std::span<const double> all(values);
  j.first_median = median_of(all.first(k));
  j.last_median = median_of(all.last(k));
  j.drop = j.first_median > 0 ? 1 - j.last_median / j.first_median : 0;
  const double mean = core::mean(all);
  j.cv = mean > 0 ? core::sample_stddev(all) / mean : 0;
  const bool dropped = j.drop > b.max_drop;
  const bool unsteady = j.cv > b.max_cv;
  j.result = dropped || unsteady ? verdict::fail : verdict::pass;
  j.rule = fmt::format(
      "last {} interval(s) at {:.3f} x the first {} (FAIL below {:.2f}); CV {:.1f} % over {} intervals "
      "(FAIL above {:g} %): {}",
      k, 1 - j.drop, k, 1 - b.max_drop, j.cv * 100, values.size(), b.max_cv * 100, to_string(j.result));
  return j;
}

error_judgement judge_errors(const std::string& device, const std::vector<telemetry::error_delta>& deltas,
                             const burn_in_bounds& b) {
  using telemetry::error_class;
  error_judgement j;
  bool hardware_xid = false;
  for (const auto& d : deltas) {
    for (const auto& c : d.rises) {
      if (c.device != device) continue;
      const auto rise = c.after - c.before;
      switch (c.cls) {
        case error_class::corrected: j.corrected += rise; break;
        case error_class::uncorrected: j.uncorrected += rise; break;
        case error_class::pending:
        case error_class::link_replay: j.other += rise; break;
      }
    }
    if (const auto it = d.xids.find(device); it != d.xids.end()) {
      for (const auto code : it->second) {
        j.xids.push_back(code);
        hardware_xid = hardware_xid || telemetry::hardware_xid(code);
      }
    }
  }
  std::vector<std::string> why;
  if (j.uncorrected > 0) why.push_back(fmt::format("{} uncorrected error(s): FAIL", j.uncorrected));
  if (hardware_xid) why.push_back("a hardware XID: FAIL");
  if (j.corrected > b.max_corrected) {
    why.push_back(fmt::format("{} corrected error(s) > {}: FAIL", j.corrected, b.max_corrected));
  }
  const bool fail = !why.empty();
  if (j.other > 0) why.push_back(fmt::format("{} pending retirement(s) or PCIe replay(s): WARN", j.other));
  if (!j.xids.empty() && !hardware_xid) why.push_back(fmt::format("{} application XID(s): WARN", j.xids.size()));
  j.result = fail ? verdict::fail : (why.empty() ? verdict::pass : verdict::warn);
  if (why.empty()) {
    j.rule = fmt::format("no error count rose over {} interval(s) (corrected allowed: {}): PASS", deltas.size(),
                         b.max_corrected);
  } else {
    std::string text;
    for (const auto& w : why) text += (text.empty() ? "" : "; ") + w;
    j.rule = text;
  }
  return j;
}

double parse_duration(const std::string& text, const std::string& flag) {
  const double seconds = parse_duration_s(text, flag);
  if (!(seconds > 0)) throw usage_error(fmt::format("{} must be above 0, not '{}'", flag, text));
  return seconds;
}

}  // namespace ironbench::validate
