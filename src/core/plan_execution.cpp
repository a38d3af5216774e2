// execute_plan (core/runner.hpp): the cases of a plan run on threads of their own under the
// schedule, each watched against its time limit, with progress and ETAs as they end.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "core/device_spread.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"
#include "core/units.hpp"

namespace ironbench::core {
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

// One execution of a plan: `run` starts the cases the dispatcher lets start, waits for one to
// end or to pass its deadline, records it, and repeats until nothing is left; `write` puts the
// results, in plan order, and the schedule into the run.
class plan_executor {
 public:
  plan_executor(const std::vector<planned_case>& plan, const run_options& options, const progress_callback& progress)
      : plan_(plan),
        options_(options),
        progress_(progress),
        sequential_(options.schedule == schedule_mode::sequential),
        schedule_(schedule_plan(plan, options.schedule)),
        dispatcher_(schedule_),
        estimate_(schedule_.size()),
        device_of_(schedule_.size()),
        results_(plan.size()),
        series_(plan.size()),
        spans_(plan.size(), {-1.0, -1.0}),
        interrupt_grace_(std::chrono::duration_cast<steady_clock::duration>(
            std::chrono::duration<double>(options.interrupt_grace_s))) {
    for (std::size_t p = 0; p < schedule_.size(); ++p)
      estimate_[p] = estimated_seconds(plan[schedule_[p].index], options.settings);
    for (const double end : simulate_ends(dispatcher_, estimate_, 0)) estimate_total_ = std::max(estimate_total_, end);
    count_devices();
  }

  void run() {
    t0_ = steady_clock::now();
    while (true) {
      if (cancelled()) {
        dispatcher_.drop_pending();
        if (!interrupted_at_) interrupted_at_ = steady_clock::now();
      }
      for (const auto p : dispatcher_.start_ready()) start(p);
      for (const auto& [p, device] : dispatcher_.take_stranded()) {
        const double now_s = seconds_between(t0_, steady_clock::now());
        record(p,
               not_run(p, fmt::format("not run: {} did not end {} within its time limit", device, hung_cases_[device])),
               nullptr, now_s, now_s);
      }
      if (dispatcher_.idle()) break;
      wait_for_an_end();
      collect();
    }
  }

  /// Appends the results in plan order, with the devices each ran beside, and the schedule.
  plan_execution write(run_result& run) {
    mark_concurrency();
    run.settings["schedule"] = {
        {"mode", to_string(options_.schedule)},
        {"estimate_s", estimate_total_},
        {"wall_s", seconds_between(t0_, steady_clock::now())},
        {"case_time_limit", options_.case_time_limit_s > 0 ? fmt::format("{} s", options_.case_time_limit_s)
                                                           : std::string("3 x the case's estimate + 60 s")},
        {"stages", stages_json()},
        {"lost_devices", out_.lost_devices},
        {"hung", std::move(hung_)}};
    std::size_t kept = 0;
    for (std::size_t i = 0; i < plan_.size(); ++i) {
      if (!results_[i]) continue;
      run.cases.push_back(std::move(*results_[i]));
      if (!series_[i].is_null()) {
        run.telemetry.push_back(
            {{"case", run.cases.size() - 1}, {"device", plan_[i].device->id}, {"samples", std::move(series_[i])}});
      }
      ++kept;
    }
    json slow = json::array();
    for (const auto& s : slow_devices(run)) slow.push_back(to_json(s));
    if (!slow.empty()) run.settings["slow_devices"] = std::move(slow);
    if (cancelled()) {
      run.status = run_status::interrupted;
      run.status_reason = fmt::format("interrupted after {} of {} cases", kept, plan_.size());
    }
    settle_run_status(run);
    return out_;
  }

 private:
  [[nodiscard]] bool cancelled() const { return options_.cancel != nullptr && options_.cancel->load(); }

  [[nodiscard]] std::string stage_name(std::size_t p) const {
    return std::string(sequential_ ? "sequential" : to_string(schedule_[p].stage));
  }

  // Each device's progress, and whether cases of several devices run side by side.
  void count_devices() {
    std::set<std::string> side_by_side_devices;
    for (std::size_t p = 0; p < schedule_.size(); ++p) {
      const auto& id = schedule_[p].devices.front();
      auto it =
          std::find_if(devices_.begin(), devices_.end(), [&](const device_progress& d) { return d.device == id; });
      if (it == devices_.end()) {
        device_progress d;
        d.device = id;
        devices_.push_back(std::move(d));
        it = std::prev(devices_.end());
      }
      ++it->total;
      device_of_[p] = static_cast<std::size_t>(it - devices_.begin());
      if (!schedule_[p].alone) side_by_side_devices.insert(id);
    }
    side_by_side_ = side_by_side_devices.size() > 1;
  }

  // Seconds left until the run ends, and each device's (from the estimates, scaled by how the
  // cases ended so far compared with theirs).
  double update_etas(steady_clock::time_point now) {
    const double ratio = finished_estimate_ > 0 ? std::clamp(finished_wall_ / finished_estimate_, 0.1, 2.0) : 1.0;
    std::vector<double> left(schedule_.size(), 0.0);
    for (const auto p : dispatcher_.pending()) left[p] = estimate_[p] * ratio;
    for (const auto& r : running_)
      left[r.position] = std::max(estimate_[r.position] * ratio - seconds_between(r.start, now), 0.0);
    const double now_s = seconds_between(t0_, now);
    const auto ends = simulate_ends(dispatcher_, left, now_s);
    double last = now_s;
    for (auto& d : devices_) d.eta_s = 0;
    for (std::size_t p = 0; p < ends.size(); ++p) {
      if (ends[p] < 0) continue;
      last = std::max(last, ends[p]);
      auto& d = devices_[device_of_[p]];
      d.eta_s = std::max(d.eta_s, ends[p] - now_s);
    }
    return last - now_s;
  }

  void notify(progress_event::kind what, std::size_t p, const case_result* result) {
    if (!progress_) return;
    const double eta = update_etas(steady_clock::now());
    const auto index = schedule_[p].index;
    progress_(progress_event{what, index, plan_.size(), done_, plan_[index], result, eta, side_by_side_, device_of_[p],
                             devices_});
  }

  void record(std::size_t p, case_result result, json case_series, double start_s, double end_s) {
    const auto index = schedule_[p].index;
    spans_[index] = {start_s, end_s};
    result.schedule = case_schedule{start_s, end_s - start_s, stage_name(p), {}};
    results_[index] = std::move(result);
    series_[index] = std::move(case_series);
    ++done_;
    auto& d = devices_[device_of_[p]];
    ++d.done;
    d.current.clear();
    notify(progress_event::kind::finished, p, &*results_[index]);
  }

  [[nodiscard]] case_result not_run(std::size_t p, const std::string& reason) const {
    case_result r;
    const auto& planned = plan_[schedule_[p].index];
    r.benchmark = planned.bench->name();
    r.device = planned.device->id;
    r.params = planned.params;
    r.param_units = planned.param_units;
    r.status = case_status::skipped;
    r.reason = reason;
    return r;
  }

  [[nodiscard]] steady_clock::time_point deadline_of(const running_case& r) const {
    auto deadline =
        r.start + std::chrono::duration_cast<steady_clock::duration>(std::chrono::duration<double>(r.limit_s));
    if (interrupted_at_) deadline = std::min(deadline, *interrupted_at_ + interrupt_grace_);
    return deadline;
  }

  void start(std::size_t p) {
    const auto& planned = plan_[schedule_[p].index];
    running_case r;
    r.position = p;
    r.slot = std::make_shared<case_slot>(case_slot{planned, options_, {}, nullptr, false});
    r.start = steady_clock::now();
    r.limit_s = case_time_limit_s(estimate_[p], options_.case_time_limit_s);
    devices_[device_of_[p]].current = case_label(planned);
    try {
      r.thread = std::thread([slot = r.slot, signal = signal_] {
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
    running_.push_back(std::move(r));
    notify(progress_event::kind::started, p, nullptr);
  }

  void wait_for_an_end() {
    std::unique_lock lock(signal_->mutex);
    auto until = steady_clock::now() + std::chrono::milliseconds(200);  // cancel is polled
    for (const auto& r : running_) until = std::min(until, deadline_of(r));
    signal_->ended.wait_until(lock, until, [&] {
      return std::any_of(running_.begin(), running_.end(), [](const running_case& r) { return r.slot->done; });
    });
  }

  // Records the cases that ended, and abandons those past their deadline as hung.
  void collect() {
    const auto now = steady_clock::now();
    for (auto it = running_.begin(); it != running_.end();) {
      bool ended = false;
      {
        std::lock_guard lock(signal_->mutex);
        ended = it->slot->done;
      }
      if (ended) {
        it = finish(it);
      } else if (now >= deadline_of(*it)) {
        it = abandon(it, now);
      } else {
        ++it;
      }
    }
  }

  std::vector<running_case>::iterator finish(std::vector<running_case>::iterator it) {
    const auto p = it->position;
    const double start_s = seconds_between(t0_, it->start);
    if (it->thread.joinable()) it->thread.join();
    dispatcher_.finish(p);
    const double end_s = seconds_between(t0_, steady_clock::now());
    if (it->slot->result.status != case_status::skipped) {
      finished_wall_ += end_s - start_s;
      finished_estimate_ += estimate_[p];
    }
    auto slot = std::move(it->slot);
    it = running_.erase(it);
    record(p, std::move(slot->result), std::move(slot->series), start_s, end_s);
    return it;
  }

  // A case past its time limit (or past the grace after an interrupt): failed, its thread left
  // to itself, its devices lost.
  std::vector<running_case>::iterator abandon(std::vector<running_case>::iterator it, steady_clock::time_point now) {
    const auto p = it->position;
    const double start_s = seconds_between(t0_, it->start);
    const bool over_limit = seconds_between(it->start, now) >= it->limit_s;
    if (it->thread.joinable()) it->thread.detach();  // it may never return; its slot and the signal are its own
    dispatcher_.abandon(p);
    const auto& planned = plan_[schedule_[p].index];
    const auto label = case_label(planned);
    for (const auto& d : schedule_[p].devices) {
      if (hung_cases_.count(d) == 0) {
        hung_cases_[d] = label;
        out_.lost_devices.push_back(d);
      }
      for (auto& dp : devices_) dp.lost = dp.lost || dp.device == d;
    }
    hung_.push_back(
        {{"device", planned.device->id}, {"devices", schedule_[p].devices}, {"case", label}, {"limit_s", it->limit_s}});
    auto r = not_run(p, "");
    r.status = case_status::failed;
    r.reason = over_limit
                   ? fmt::format(
                         "no result within the case's time limit of {}: {} hung (its cases left "
                         "are not run)",
                         format_wall_time(it->limit_s), fmt::join(schedule_[p].devices, " or "))
                   : fmt::format("did not stop within {} of the interrupt: {} hung",
                                 format_wall_time(options_.interrupt_grace_s), fmt::join(schedule_[p].devices, " or "));
    it = running_.erase(it);
    record(p, std::move(r), nullptr, start_s, seconds_between(t0_, now));
    return it;
  }

  // Beside which devices each case ran: those whose cases' spans meet its own.
  void mark_concurrency() {
    for (std::size_t i = 0; i < plan_.size(); ++i) {
      if (!results_[i] || results_[i]->status == case_status::skipped) continue;
      std::set<std::string> beside;
      for (std::size_t j = 0; j < plan_.size(); ++j) {
        if (j == i || !results_[j] || results_[j]->status == case_status::skipped) continue;
        if (plan_[j].device->id == plan_[i].device->id) continue;
        if (spans_[j].first < spans_[i].second && spans_[i].first < spans_[j].second)
          beside.insert(plan_[j].device->id);
      }
      results_[i]->schedule->concurrent_with.assign(beside.begin(), beside.end());
    }
  }

  // The stages in the order they began: their devices, case counts and spans.
  [[nodiscard]] json stages_json() const {
    json stages = json::array();
    for (std::size_t p = 0; p < schedule_.size(); ++p) {
      const auto index = schedule_[p].index;
      if (!results_[index]) continue;
      const auto name = stage_name(p);
      auto it = std::find_if(stages.begin(), stages.end(), [&](const json& s) { return s.at("stage") == name; });
      if (it == stages.end()) {
        stages.push_back({{"stage", name},
                          {"how", sequential_ ? "one case at a time, in order" : describe(schedule_[p].stage)},
                          {"devices", json::array()},
                          {"cases", 0},
                          {"start_s", spans_[index].first},
                          {"end_s", spans_[index].second}});
        it = std::prev(stages.end());
      }
      auto& s = *it;
      s["cases"] = s.at("cases").get<std::size_t>() + 1;
      s["start_s"] = std::min(s.at("start_s").get<double>(), spans_[index].first);
      s["end_s"] = std::max(s.at("end_s").get<double>(), spans_[index].second);
      const auto& id = plan_[index].device->id;
      if (std::find(s.at("devices").begin(), s.at("devices").end(), id) == s.at("devices").end())
        s["devices"].push_back(id);
    }
    std::sort(stages.begin(), stages.end(), [](const json& a, const json& b) {
      return a.at("start_s").get<double>() < b.at("start_s").get<double>();
    });
    return stages;
  }

  const std::vector<planned_case>& plan_;
  const run_options& options_;
  const progress_callback& progress_;
  const bool sequential_;
  const std::vector<scheduled_case> schedule_;
  case_dispatcher dispatcher_;
  std::vector<double> estimate_;
  double estimate_total_ = 0;
  std::vector<device_progress> devices_;
  std::vector<std::size_t> device_of_;
  bool side_by_side_ = false;

  const std::shared_ptr<case_signal> signal_ = std::make_shared<case_signal>();
  std::vector<std::optional<case_result>> results_;
  std::vector<json> series_;
  std::vector<std::pair<double, double>> spans_;
  std::vector<running_case> running_;
  std::map<std::string, std::string> hung_cases_;  // lost device -> the case that hung on it
  json hung_ = json::array();
  plan_execution out_;
  steady_clock::time_point t0_ = steady_clock::now();
  std::size_t done_ = 0;
  double finished_wall_ = 0;
  double finished_estimate_ = 0;
  const steady_clock::duration interrupt_grace_;
  std::optional<steady_clock::time_point> interrupted_at_;
};

}  // namespace

plan_execution execute_plan(const std::vector<planned_case>& plan, const run_options& options, run_result& run,
                            const progress_callback& progress) {
  plan_executor executor(plan, options, progress);
  executor.run();
  return executor.write(run);
}

}  // namespace ironbench::core
