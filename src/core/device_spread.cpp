#include "core/device_spread.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.hpp"

namespace ironbench::core {
namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

std::vector<slow_device> slow_devices(const run_result& run, const spread_rules& rules) {
  // Which devices are peers: the same kind and name.
  std::map<std::string, std::string> model_of;
  for (const auto& d : run.devices) model_of[d.id] = std::string(to_string(d.kind)) + '/' + d.name;
  const auto model = [&](const std::string& id) {
    const auto it = model_of.find(id);
    return it != model_of.end() ? it->second : id.substr(0, id.find(':'));
  };
  // Group the valid cases by model, benchmark and parameters.
  struct entry {
    std::string device;
    double value;
    const case_result* result;
  };
  std::map<std::string, std::vector<entry>> groups;
  for (const auto& c : run.cases) {
    if (c.status != case_status::valid || c.metrics.empty() || !(c.metrics.front().value > 0)) continue;
    groups[model(c.device) + '\n' + c.benchmark + '\n' + c.params.label()].push_back(
        {c.device, c.metrics.front().value, &c});
  }
  std::map<std::string, slow_device> worst;
  for (const auto& [key, entries] : groups) {
    if (entries.size() < 2) continue;
    for (const auto& e : entries) {
      std::vector<double> others;
      for (const auto& o : entries) {
        if (&o != &e) others.push_back(o.value);
      }
      const double median = median_of(others);
      const double ratio = e.value / median;
      auto& w = worst[e.device];
      if (w.device.empty()) {
        w.device = e.device;
        w.ratio = 2;  // any real ratio replaces it
      }
      ++w.compared_cases;
      if (ratio < rules.warn_below) ++w.slow_cases;
      if (ratio < w.ratio) {
        w.ratio = ratio;
        const auto params = e.result->params.label();
        w.case_label = params.empty() ? e.result->benchmark : e.result->benchmark + " " + params;
        w.metric = e.result->metrics.front().name;
        w.unit = e.result->metrics.front().unit;
        w.value = e.value;
        w.peers_median = median;
        w.peers = others.size();
      }
    }
  }
  std::vector<slow_device> out;
  for (auto& [device, w] : worst) {
    if (w.ratio >= rules.warn_below) continue;
    w.verdict = w.ratio < rules.fail_below ? "FAIL" : "WARN";
    out.push_back(std::move(w));
  }
  std::sort(out.begin(), out.end(), [](const slow_device& a, const slow_device& b) { return a.ratio < b.ratio; });
  return out;
}

json to_json(const slow_device& slow) {
  return {{"device", slow.device},
          {"verdict", slow.verdict},
          {"case", slow.case_label},
          {"metric", slow.metric},
          {"unit", slow.unit},
          {"value", slow.value},
          {"peers_median", slow.peers_median},
          {"ratio", slow.ratio},
          {"peers", slow.peers},
          {"slow_cases", slow.slow_cases},
          {"compared_cases", slow.compared_cases}};
}

std::string describe(const slow_device& slow, const spread_rules& rules) {
  return fmt::format(
      "{} {}: {} at {:.2f} of the other {} device{}' median ({} vs {} {}), {} of {} compared case{} below {:g}",
      slow.device, slow.verdict, slow.case_label, slow.ratio, slow.peers, slow.peers == 1 ? "" : "s",
      format_number(slow.value), format_number(slow.peers_median), slow.unit, slow.slow_cases, slow.compared_cases,
      slow.compared_cases == 1 ? "" : "s", rules.warn_below);
}

}  // namespace ironbench::core
