#include "experiment/repeat_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>

#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "core/statistics.hpp"

namespace ironbench::experiment {
namespace {

// What makes two repeats' cases the same case.
std::string identity_of(const core::case_result& c) {
  const auto step = c.notes.find("step");
  return (step == c.notes.end() ? "" : step->second) + "\n" + c.benchmark + "\n" + c.device + "\n" +
         core::json_text(core::to_json(c.params));
}

// valid < skipped < invalid < failed.
int severity(core::case_status status) {
  switch (status) {
    case core::case_status::valid: return 0;
    case core::case_status::skipped: return 1;
    case core::case_status::invalid: return 2;
    case core::case_status::failed: return 3;
  }
  return 3;
}

}  // namespace

double trimmed_mean(std::vector<double> values, double trim) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto cut = static_cast<std::size_t>(std::floor(trim * static_cast<double>(values.size())));
  if (2 * cut >= values.size()) return core::mean(values);
  return core::mean(std::span<const double>(values).subspan(cut, values.size() - 2 * cut));
}

merged_repeats merge_repeats(const std::vector<std::vector<core::case_result>>& repeats, double trim) {
  merged_repeats out;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const core::case_result*>> by_identity;
  for (const auto& cases : repeats) {
    for (const auto& c : cases) {
      const auto id = identity_of(c);
      auto& list = by_identity[id];
      if (list.empty()) order.push_back(id);
      list.push_back(&c);
    }
  }
  for (const auto& id : order) {
    const auto& list = by_identity[id];
    core::case_result merged = *list.front();
    for (const auto* c : list) {
      if (severity(c->status) > severity(merged.status)) {
        merged.status = c->status;
        merged.reason = c->reason;
      }
    }
    if (list.size() > 1) {
      for (auto& m : merged.metrics) {
        std::vector<double> values;
        for (const auto* c : list) {
          if (const auto* found = c->find_metric(m.name)) values.push_back(found->value);
        }
        const auto s = core::summarize(values);
        m.value = s.median;
        merged.series[m.name] = values;
        const auto step = merged.notes.find("step");
        out.statistics.push_back({{"case", out.cases.size()},
                                  {"step", step == merged.notes.end() ? "" : step->second},
                                  {"benchmark", merged.benchmark},
                                  {"metric", m.name},
                                  {"unit", m.unit},
                                  {"repeats", values.size()},
                                  {"median", s.median},
                                  {"mean", s.mean},
                                  {"stdev", s.stddev},
                                  {"trimmed_mean", trimmed_mean(values, trim)},
                                  {"values", values}});
      }
    }
    out.cases.push_back(std::move(merged));
  }
  return out;
}

}  // namespace ironbench::experiment
