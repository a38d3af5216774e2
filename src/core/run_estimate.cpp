#include "core/run_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <queue>

#include "core/error.hpp"

namespace ironbench::core {

double estimated_seconds(const planned_case& planned, const measurement_settings& settings) {
  if (!planned.skip_reason.empty() || planned.bench == nullptr || !planned.device) return 0;
  return estimated_case_seconds(planned.bench->cost(planned.params, *planned.device), settings);
}

double case_time_limit_s(double estimate_s, double fixed_limit_s) {
  if (fixed_limit_s > 0) return fixed_limit_s;
  return 3 * std::max(0.0, estimate_s) + 60;
}

std::vector<double> simulate_ends(case_dispatcher dispatcher, const std::vector<double>& seconds, double now_s) {
  std::vector<double> ends(dispatcher.cases().size(), -1);
  using event = std::pair<double, std::size_t>;
  std::priority_queue<event, std::vector<event>, std::greater<>> events;
  const auto seconds_of = [&](std::size_t p) { return p < seconds.size() ? std::max(0.0, seconds[p]) : 0.0; };
  for (const auto r : dispatcher.running()) events.emplace(now_s + seconds_of(r), r);
  double t = now_s;
  while (true) {
    (void)dispatcher.take_stranded();
    for (const auto p : dispatcher.start_ready()) events.emplace(t + seconds_of(p), p);
    if (events.empty()) break;
    const auto [end, position] = events.top();
    events.pop();
    t = end;
    ends[position] = end;
    dispatcher.finish(position);
  }
  return ends;
}

run_estimate estimate_run(const std::vector<planned_case>& plan, const run_options& options) {
  run_estimate out;
  out.mode = options.schedule;
  const auto schedule = schedule_plan(plan, options.schedule);
  out.case_s.resize(plan.size());
  std::vector<double> seconds(schedule.size());
  for (std::size_t p = 0; p < schedule.size(); ++p) {
    seconds[p] = estimated_seconds(plan[schedule[p].index], options.settings);
    out.case_s[schedule[p].index] = seconds[p];
  }
  const auto ends = simulate_ends(case_dispatcher(schedule), seconds, 0);
  for (std::size_t p = 0; p < schedule.size(); ++p) {
    const auto& planned = plan[schedule[p].index];
    const auto& id = planned.device->id;
    auto it =
        std::find_if(out.devices.begin(), out.devices.end(), [&](const device_estimate& d) { return d.device == id; });
    if (it == out.devices.end()) {
      device_estimate d;
      d.device = id;
      out.devices.push_back(std::move(d));
      it = std::prev(out.devices.end());
    }
    ++it->cases;
    if (!planned.skip_reason.empty()) ++it->skipped;
    it->busy_s += seconds[p];
    it->end_s = std::max(it->end_s, ends[p]);
    out.total_s = std::max(out.total_s, ends[p]);

    const std::string stage =
        options.schedule == schedule_mode::sequential ? "sequential" : to_string(schedule[p].stage);
    auto s =
        std::find_if(out.stages.begin(), out.stages.end(), [&](const stage_estimate& e) { return e.stage == stage; });
    if (s == out.stages.end()) {
      out.stages.push_back(
          {stage,
           options.schedule == schedule_mode::sequential ? "one case at a time, in order" : describe(schedule[p].stage),
           0, ends[p] - seconds[p], ends[p]});
      s = std::prev(out.stages.end());
    }
    ++s->cases;
    s->start_s = std::min(s->start_s, ends[p] - seconds[p]);
    s->end_s = std::max(s->end_s, ends[p]);
  }
  std::sort(out.stages.begin(), out.stages.end(),
            [](const stage_estimate& a, const stage_estimate& b) { return a.start_s < b.start_s; });
  return out;
}

std::string format_wall_time(double seconds) {
  if (!(seconds > 0)) return "0 s";
  if (seconds < 10) return fmt::format("{:.1f} s", seconds);
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 60) return fmt::format("{} s", whole);
  if (whole < 3600) {
    return whole % 60 == 0 ? fmt::format("{} min", whole / 60) : fmt::format("{} min {} s", whole / 60, whole % 60);
  }
  const long long minutes = (whole + 30) / 60;
  return minutes % 60 == 0 ? fmt::format("{} h", minutes / 60) : fmt::format("{} h {} min", minutes / 60, minutes % 60);
}

std::string describe(const run_estimate& estimate) {
  std::size_t cases = 0;
  for (const auto& d : estimate.devices) cases += d.cases;
  std::vector<std::string> devices;
  for (const auto& d : estimate.devices) {
    devices.push_back(
        fmt::format("{} {} case{} ({})", d.device, d.cases, d.cases == 1 ? "" : "s", format_wall_time(d.busy_s)));
  }
  std::vector<std::string> stages;
  for (const auto& s : estimate.stages) stages.push_back(s.how);
  return fmt::format("{} case{}, at most about {} ({}): {}", cases, cases == 1 ? "" : "s",
                     format_wall_time(estimate.total_s), fmt::join(stages, "; then "), fmt::join(devices, ", "));
}

void check_time_limit(const run_estimate& estimate, double limit_s) {
  if (limit_s <= 0 || estimate.total_s <= limit_s) return;
  const auto longest =
      std::max_element(estimate.devices.begin(), estimate.devices.end(),
                       [](const device_estimate& a, const device_estimate& b) { return a.busy_s < b.busy_s; });
  const std::string busiest =
      longest == estimate.devices.end()
          ? std::string()
          : fmt::format("; {} alone has {} of cases", longest->device, format_wall_time(longest->busy_s));
  throw usage_error(fmt::format(
      "this run is estimated at up to {}, over --time-limit {}{}: narrow it (fewer --axis values, --device, "
      "--max-time) or give a larger --time-limit (0: none)",
      format_wall_time(estimate.total_s), format_wall_time(limit_s), busiest));
}

}  // namespace ironbench::core
