#include "core/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <set>
#include <system_error>
#include <thread>

#include "core/checked_bytes.hpp"
#include "core/device_spread.hpp"
#include "core/error.hpp"
#include "core/run_estimate.hpp"
#include "core/sweep.hpp"
#include "core/units.hpp"

namespace ironbench::core {
namespace {

// "dtype=fp64 size=8G": like parameter_set::label, with size axes shown as 1M, 8G.
std::string display_label(const parameter_set& params, const std::vector<axis>& axes) {
  std::string text;
  for (const auto& [name, value] : params.entries()) {
    const auto a = std::find_if(axes.begin(), axes.end(), [&](const axis& x) { return x.name == name; });
    text += (text.empty() ? "" : " ") + name + '=' + (a != axes.end() ? display_value(*a, value) : to_string(value));
  }
  return text;
}

std::vector<const benchmark*> select_benchmarks(const registry& benchmarks, const run_options& options) {
  if (options.benchmarks.empty()) return benchmarks.default_suite();
  std::vector<const benchmark*> selected;
  for (const auto& name : options.benchmarks) {
    const auto* b = &benchmarks.get(name);
    if (std::find(selected.begin(), selected.end(), b) == selected.end()) selected.push_back(b);
  }
  return selected;
}

// Every override must be taken by some selected benchmark (on some device).
void check_overrides_are_used(const std::vector<const benchmark*>& selected, const std::vector<device_info>& devices,
                              const run_options& options) {
  for (const auto& o : options.overrides) {
    bool named_selected = o.benchmark.empty();
    bool has_axis = false;
    for (const auto* b : selected) {
      if (!o.benchmark.empty() && o.benchmark != b->name()) continue;
      named_selected = true;
      for (const auto& d : devices) {
        for (const auto& a : b->axes(d)) has_axis = has_axis || a.name == o.name;
      }
    }
    if (!named_selected) {
      throw usage_error(fmt::format("--axis {} names benchmark '{}', which is not selected", o.text, o.benchmark));
    }
    if (!has_axis) {
      throw usage_error(fmt::format("--axis {}: no selected benchmark has an axis '{}'", o.text, o.name));
    }
  }
}

// Whether any override applies to one of `axes` of `benchmark`.
bool overridden(const std::string& benchmark, const std::vector<axis>& axes,
                const std::vector<axis_override>& overrides) {
  return std::any_of(overrides.begin(), overrides.end(), [&](const axis_override& o) {
    if (!o.benchmark.empty() && o.benchmark != benchmark) return false;
    return std::any_of(axes.begin(), axes.end(), [&](const axis& a) { return a.name == o.name; });
  });
}

}  // namespace

std::vector<planned_case> plan_run(const registry& benchmarks, const std::vector<device_info>& devices,
                                   const run_options& options) {
  const auto selected = select_benchmarks(benchmarks, options);
  check_overrides_are_used(selected, devices, options);
  std::vector<planned_case> plan;
  for (const auto* b : selected) {
    for (const auto& d : devices) {
      const auto shared_device = std::make_shared<const device_info>(d);
      const auto& device = *shared_device;
      const auto reason = b->unsupported_reason(device);
      if (!reason.empty()) {
        plan.push_back({b, shared_device, {}, {}, reason});
        continue;
      }
      const auto declared = b->axes(device);
      const bool first_look = !overridden(b->name(), declared, options.overrides);
      const auto axes = apply_overrides(b->name(), declared, options.overrides);
      std::map<std::string, std::string> units;
      for (const auto& a : axes) {
        if (!a.unit.empty()) units[a.name] = a.unit;
      }
      for (auto& params : expand_sweep(axes)) {
        if (first_look && !b->in_first_look(params, device)) continue;
        b->check_params(params, device);
        const auto needed = b->memory_required(params, device);
        if (needed == uncountable_bytes) {
          throw usage_error(fmt::format("{} {} on {} needs more bytes of memory than 64 bits can count", b->name(),
                                        display_label(params, axes), device.id));
        }
        if (device.memory_bytes > 0 && needed > device.memory_bytes) {
          throw usage_error(fmt::format("{} {} on {} needs {} of memory but the device has {}", b->name(),
                                        display_label(params, axes), device.id, format_bytes(needed),
                                        format_bytes(device.memory_bytes)));
        }
        plan.push_back({b, shared_device, std::move(params), units, {}});
        if (plan.size() > max_planned_cases) {
          throw usage_error(fmt::format("the sweep has more than {} cases; narrow the axes", max_planned_cases));
        }
      }
    }
  }
  return plan;
}

case_result run_case(const planned_case& planned, const run_options& options, json* series) {
  const auto name = planned.bench->name();
  auto skipped_or_failed = [&](case_status status, std::string reason) {
    case_result result;
    result.benchmark = name;
    result.device = planned.device->id;
    result.params = planned.params;
    result.param_units = planned.param_units;
    result.status = status;
    result.reason = std::move(reason);
    return result;
  };
  if (!planned.skip_reason.empty()) return skipped_or_failed(case_status::skipped, planned.skip_reason);
  case_state state(planned.params, *planned.device, options.settings, options.cancel);
  auto monitor = options.monitor ? options.monitor(*planned.device) : nullptr;
  // What the monitor saw goes with the case whatever its outcome (a failure may be thermal).
  const auto observed = [&](case_result result) {
    if (!monitor) return result;
    if (state.measured_window()) monitor->measured_between(*state.measured_window());
    auto seen = monitor->finish();
    result.telemetry = std::move(seen.summary);
    for (auto& m : seen.metrics) result.metrics.push_back(std::move(m));
    result.load = seen.load;
    if (series != nullptr) *series = std::move(seen.series);
    return result;
  };
  try {
    planned.bench->run(state);
    auto result = state.finish(name);
    result.param_units = planned.param_units;
    if (!result.timing && result.status == case_status::valid) {
      return observed(skipped_or_failed(case_status::failed, "the benchmark measured nothing"));
    }
    result = observed(std::move(result));
    if (result.status == case_status::valid && result.timing) {
      result.unstable = judge_stability(*result.timing, options.settings.unstable_cv, result.load);
    }
    return result;
  } catch (const skip_case& skip) {
    return observed(skipped_or_failed(case_status::skipped, skip.what()));
  } catch (const std::bad_alloc&) {
    return observed(skipped_or_failed(case_status::failed, "out of memory"));
  } catch (const std::exception& e) {
    return observed(skipped_or_failed(case_status::failed, e.what()));
  }
}

namespace {

using steady_clock = std::chrono::steady_clock;

double seconds_between(steady_clock::time_point from, steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// How a case's thread tells the run it ended. Shared: a hung case's thread may end after the
// run has returned.
struct case_signal {
  std::mutex mutex;
  std::condition_variable ended;
};

// What a case's thread owns: copies of its case and options, so that nothing it reads goes away
// when the run returns without it (a hung case), and its result once it ends.
struct case_slot {
  planned_case planned;
  run_options options;
  case_result result;
  json series = nullptr;
  bool done = false;  ///< guarded by case_signal::mutex
};

struct running_case {
  std::size_t position = 0;
  std::shared_ptr<case_slot> slot;
  std::thread thread;
  steady_clock::time_point start;
  double limit_s = 0;
};

std::string case_label(const planned_case& planned) {
  const auto params = planned.params.label();
  return params.empty() ? planned.bench->name() : planned.bench->name() + " " + params;
}

}  // namespace

plan_execution execute_plan(const std::vector<planned_case>& plan, const run_options& options, run_result& run,
                            const progress_callback& progress) {
  const auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(); };
  const bool sequential = options.schedule == schedule_mode::sequential;
  const auto schedule = schedule_plan(plan, options.schedule);
  case_dispatcher dispatcher(schedule);
  std::vector<double> estimate(schedule.size());
  for (std::size_t p = 0; p < schedule.size(); ++p)
    estimate[p] = estimated_seconds(plan[schedule[p].index], options.settings);
  double estimate_total = 0;
  for (const double end : simulate_ends(dispatcher, estimate, 0)) estimate_total = std::max(estimate_total, end);
  const auto stage_name = [&](std::size_t p) {
    return std::string(sequential ? "sequential" : to_string(schedule[p].stage));
  };

  // Each device's progress, and whether cases of several devices run side by side.
  std::vector<device_progress> devices;
  std::vector<std::size_t> device_of(schedule.size());
  std::set<std::string> side_by_side_devices;
  for (std::size_t p = 0; p < schedule.size(); ++p) {
    const auto& id = schedule[p].devices.front();
    auto it = std::find_if(devices.begin(), devices.end(), [&](const device_progress& d) { return d.device == id; });
    if (it == devices.end()) {
      device_progress d;
      d.device = id;
      devices.push_back(std::move(d));
      it = std::prev(devices.end());
    }
    ++it->total;
    device_of[p] = static_cast<std::size_t>(it - devices.begin());
    if (!schedule[p].alone) side_by_side_devices.insert(id);
  }
  const bool side_by_side = side_by_side_devices.size() > 1;

  const auto signal = std::make_shared<case_signal>();
  std::vector<std::optional<case_result>> results(plan.size());
  std::vector<json> series(plan.size());
  std::vector<std::pair<double, double>> spans(plan.size(), {-1.0, -1.0});
  std::vector<running_case> running;
  std::map<std::string, std::string> hung_cases;  // lost device -> the case that hung on it
  json hung = json::array();
  plan_execution out;
  const auto t0 = steady_clock::now();
  std::size_t done = 0;
  double finished_wall = 0;
  double finished_estimate = 0;

  // Seconds left until the run ends, and each device's (from the estimates, scaled by how the
  // cases ended so far compared with theirs).
  const auto update_etas = [&](steady_clock::time_point now) {
    const double ratio = finished_estimate > 0 ? std::clamp(finished_wall / finished_estimate, 0.1, 2.0) : 1.0;
    std::vector<double> left(schedule.size(), 0.0);
    for (const auto p : dispatcher.pending()) left[p] = estimate[p] * ratio;
    for (const auto& r : running)
      left[r.position] = std::max(estimate[r.position] * ratio - seconds_between(r.start, now), 0.0);
    const double now_s = seconds_between(t0, now);
    const auto ends = simulate_ends(dispatcher, left, now_s);
    double last = now_s;
    for (auto& d : devices) d.eta_s = 0;
    for (std::size_t p = 0; p < ends.size(); ++p) {
      if (ends[p] < 0) continue;
      last = std::max(last, ends[p]);
      auto& d = devices[device_of[p]];
      d.eta_s = std::max(d.eta_s, ends[p] - now_s);
    }
    return last - now_s;
  };
  const auto notify = [&](progress_event::kind what, std::size_t p, const case_result* result) {
    if (!progress) return;
    const double eta = update_etas(steady_clock::now());
    const auto index = schedule[p].index;
    progress(
        progress_event{what, index, plan.size(), done, plan[index], result, eta, side_by_side, device_of[p], devices});
  };
  const auto record = [&](std::size_t p, case_result result, json case_series, double start_s, double end_s) {
    const auto index = schedule[p].index;
    spans[index] = {start_s, end_s};
    result.schedule = case_schedule{start_s, end_s - start_s, stage_name(p), {}};
    results[index] = std::move(result);
    series[index] = std::move(case_series);
    ++done;
    auto& d = devices[device_of[p]];
    ++d.done;
    d.current.clear();
    notify(progress_event::kind::finished, p, &*results[index]);
  };
  const auto not_run = [&](std::size_t p, const std::string& reason) {
    case_result r;
    const auto& planned = plan[schedule[p].index];
    r.benchmark = planned.bench->name();
    r.device = planned.device->id;
    r.params = planned.params;
    r.param_units = planned.param_units;
    r.status = case_status::skipped;
    r.reason = reason;
    return r;
  };

  const auto interrupt_grace =
      std::chrono::duration_cast<steady_clock::duration>(std::chrono::duration<double>(options.interrupt_grace_s));
  std::optional<steady_clock::time_point> interrupted_at;
  const auto deadline_of = [&](const running_case& r) {
    auto deadline =
        r.start + std::chrono::duration_cast<steady_clock::duration>(std::chrono::duration<double>(r.limit_s));
    if (interrupted_at) deadline = std::min(deadline, *interrupted_at + interrupt_grace);
    return deadline;
  };

  while (true) {
    if (cancelled()) {
      dispatcher.drop_pending();
      if (!interrupted_at) interrupted_at = steady_clock::now();
    }
    for (const auto p : dispatcher.start_ready()) {
      const auto& planned = plan[schedule[p].index];
      running_case r;
      r.position = p;
      r.slot = std::make_shared<case_slot>(case_slot{planned, options, {}, nullptr, false});
      r.start = steady_clock::now();
      r.limit_s = case_time_limit_s(estimate[p], options.case_time_limit_s);
      devices[device_of[p]].current = case_label(planned);
      try {
        r.thread = std::thread([slot = r.slot, signal] {
          json case_series = nullptr;
          auto result = run_case(slot->planned, slot->options, &case_series);
          std::lock_guard lock(signal->mutex);
          slot->result = std::move(result);
          slot->series = std::move(case_series);
          slot->done = true;
          signal->ended.notify_all();
        });
      } catch (const std::system_error&) {
        // No thread to spare: the case runs on this one (it cannot be abandoned if it hangs).
        r.slot->result = run_case(r.slot->planned, r.slot->options, &r.slot->series);
        r.slot->done = true;
      }
      running.push_back(std::move(r));
      notify(progress_event::kind::started, p, nullptr);
    }
    for (const auto& [p, device] : dispatcher.take_stranded()) {
      const double now_s = seconds_between(t0, steady_clock::now());
      record(p, not_run(p, fmt::format("not run: {} did not end {} within its time limit", device, hung_cases[device])),
             nullptr, now_s, now_s);
    }
    if (dispatcher.idle()) break;

    {
      std::unique_lock lock(signal->mutex);
      auto until = steady_clock::now() + std::chrono::milliseconds(200);  // cancel is polled
      for (const auto& r : running) until = std::min(until, deadline_of(r));
      signal->ended.wait_until(lock, until, [&] {
        return std::any_of(running.begin(), running.end(), [](const running_case& r) { return r.slot->done; });
      });
    }
    const auto now = steady_clock::now();
    for (auto it = running.begin(); it != running.end();) {
      bool ended = false;
      {
        std::lock_guard lock(signal->mutex);
        ended = it->slot->done;
      }
      const auto p = it->position;
      const double start_s = seconds_between(t0, it->start);
      if (ended) {
        if (it->thread.joinable()) it->thread.join();
        dispatcher.finish(p);
        const double end_s = seconds_between(t0, steady_clock::now());
        if (it->slot->result.status != case_status::skipped) {
          finished_wall += end_s - start_s;
          finished_estimate += estimate[p];
        }
        auto slot = std::move(it->slot);
        it = running.erase(it);
        record(p, std::move(slot->result), std::move(slot->series), start_s, end_s);
      } else if (now >= deadline_of(*it)) {
        const bool over_limit = seconds_between(it->start, now) >= it->limit_s;
        if (it->thread.joinable()) it->thread.detach();  // it may never return; its slot and the signal are its own
        dispatcher.abandon(p);
        const auto& planned = plan[schedule[p].index];
        const auto label = case_label(planned);
        for (const auto& d : schedule[p].devices) {
          if (hung_cases.count(d) == 0) {
            hung_cases[d] = label;
            out.lost_devices.push_back(d);
          }
          for (auto& dp : devices) dp.lost = dp.lost || dp.device == d;
        }
        hung.push_back({{"device", planned.device->id},
                        {"devices", schedule[p].devices},
                        {"case", label},
                        {"limit_s", it->limit_s}});
        auto r = not_run(p, "");
        r.status = case_status::failed;
        r.reason = over_limit ? fmt::format(
                                    "no result within the case's time limit of {}: {} hung (its cases left "
                                    "are not run)",
                                    format_wall_time(it->limit_s), fmt::join(schedule[p].devices, " or "))
                              : fmt::format("did not stop within {} of the interrupt: {} hung",
                                            format_wall_time(options.interrupt_grace_s),
                                            fmt::join(schedule[p].devices, " or "));
        it = running.erase(it);
        record(p, std::move(r), nullptr, start_s, seconds_between(t0, now));
      } else {
        ++it;
      }
    }
  }

  // Beside which devices each case ran: those whose cases' spans meet its own.
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!results[i] || results[i]->status == case_status::skipped) continue;
    std::set<std::string> beside;
    for (std::size_t j = 0; j < plan.size(); ++j) {
      if (j == i || !results[j] || results[j]->status == case_status::skipped) continue;
      if (plan[j].device->id == plan[i].device->id) continue;
      if (spans[j].first < spans[i].second && spans[i].first < spans[j].second) beside.insert(plan[j].device->id);
    }
    results[i]->schedule->concurrent_with.assign(beside.begin(), beside.end());
  }

  json stages = json::array();
  for (std::size_t p = 0; p < schedule.size(); ++p) {
    const auto index = schedule[p].index;
    if (!results[index]) continue;
    const auto name = stage_name(p);
    auto it = std::find_if(stages.begin(), stages.end(), [&](const json& s) { return s.at("stage") == name; });
    if (it == stages.end()) {
      stages.push_back({{"stage", name},
                        {"how", sequential ? "one case at a time, in order" : describe(schedule[p].stage)},
                        {"devices", json::array()},
                        {"cases", 0},
                        {"start_s", spans[index].first},
                        {"end_s", spans[index].second}});
      it = std::prev(stages.end());
    }
    auto& s = *it;
    s["cases"] = s.at("cases").get<std::size_t>() + 1;
    s["start_s"] = std::min(s.at("start_s").get<double>(), spans[index].first);
    s["end_s"] = std::max(s.at("end_s").get<double>(), spans[index].second);
    const auto& id = plan[index].device->id;
    if (std::find(s.at("devices").begin(), s.at("devices").end(), id) == s.at("devices").end())
      s["devices"].push_back(id);
  }
  std::sort(stages.begin(), stages.end(),
            [](const json& a, const json& b) { return a.at("start_s").get<double>() < b.at("start_s").get<double>(); });
  run.settings["schedule"] = {
      {"mode", to_string(options.schedule)},
      {"estimate_s", estimate_total},
      {"wall_s", seconds_between(t0, steady_clock::now())},
      {"case_time_limit", options.case_time_limit_s > 0 ? fmt::format("{} s", options.case_time_limit_s)
                                                        : std::string("3 x the case's estimate + 60 s")},
      {"stages", std::move(stages)},
      {"lost_devices", out.lost_devices},
      {"hung", std::move(hung)}};

  std::size_t kept = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!results[i]) continue;
    run.cases.push_back(std::move(*results[i]));
    if (!series[i].is_null()) {
      run.telemetry.push_back(
          {{"case", run.cases.size() - 1}, {"device", plan[i].device->id}, {"samples", std::move(series[i])}});
    }
    ++kept;
  }
  json slow = json::array();
  for (const auto& s : slow_devices(run)) slow.push_back(to_json(s));
  if (!slow.empty()) run.settings["slow_devices"] = std::move(slow);
  if (cancelled()) {
    run.status = run_status::interrupted;
    run.status_reason = fmt::format("interrupted after {} of {} cases", kept, plan.size());
  }
  settle_run_status(run);
  return out;
}

std::optional<std::uint64_t> host_memory_needed(const std::vector<planned_case>& plan) {
  std::optional<std::uint64_t> most;
  for (const auto& c : plan) {
    if (c.bench == nullptr || !c.device || c.device->kind != device_kind::cpu || !c.skip_reason.empty()) continue;
    const auto needed = c.bench->memory_required(c.params, *c.device);
    if (!most || needed > *most) most = needed;
  }
  return most;
}

}  // namespace ironbench::core
