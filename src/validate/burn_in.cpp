#include "validate/burn_in.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>

#include "benchmarks/builtin.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "device/device_enumeration.hpp"
#include "doctor/examine.hpp"
#include "doctor/gather_facts.hpp"
#include "doctor/live_facts.hpp"
#include "platform/cpu_info.hpp"
#include "session/case_monitors.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "validate/expected_values.hpp"
#include "validate/host_sensors.hpp"

namespace ironbench::validate {
namespace {

using clock_type = std::chrono::steady_clock;

/// Intervals shorter than this are run but flagged: each workload gets a few seconds at most, so
/// clocks and temperatures have less time to settle and the spread between intervals is larger.
constexpr double steady_interval_s = 10;

// One workload of a device: a planned case and its label.
struct workload {
  core::planned_case planned;
  std::string
      label;  ///< "gemm fp64 2048x2048x2048", "gemm bf16 8192x8192x8192 (cublaslt)", "stream triad fp64 256 MiB"
};

struct device_work {
  core::device_info device;
  std::vector<workload> workloads;
};

std::string param(const core::planned_case& p, const char* name) {
  return p.params.contains(name) ? core::to_string(p.params.at(name)) : "?";
}

std::string label_of(const core::planned_case& p) {
  if (p.bench->name() == "gemm") {
    // A GPU's GEMM runs through each of its libraries: the provider tells the rows apart.
    const std::string provider = p.params.contains("provider") ? " (" + param(p, "provider") + ")" : "";
    return fmt::format("gemm {} {}x{}x{}{}", param(p, "dtype"), param(p, "M"), param(p, "N"), param(p, "K"), provider);
  }
  std::string size;
  if (p.params.contains("size"))
    size = " " + format_bytes(static_cast<double>(std::get<std::int64_t>(p.params.at("size"))));
  return fmt::format("stream {} {}{}", param(p, "kernel"), param(p, "dtype"), size);
}

// The first of `wanted` that `device`'s gemm offers.
std::string gemm_dtype(const core::benchmark& gemm, const core::device_info& device,
                       const std::vector<std::string>& wanted) {
  for (const auto& a : gemm.axes(device)) {
    if (a.name != "dtype") continue;
    for (const auto& w : wanted) {
      if (a.choices.empty() || std::find(a.choices.begin(), a.choices.end(), w) != a.choices.end()) return w;
    }
  }
  return "";
}

// Per device: GEMM at a size that keeps it compute bound (2048³ on a CPU, 8192³ on a GPU, the
// widest-FMA dtype it offers) and STREAM triad over arrays past the caches.
std::vector<device_work> plan_burn_in(const core::registry& benchmarks, const std::vector<core::device_info>& devices) {
  const auto& gemm = benchmarks.get("gemm");
  const auto& stream = benchmarks.get("stream");
  std::vector<device_work> out;
  for (const auto& device : devices) {
    const bool gpu = core::is_gpu(device);
    core::run_options options;
    const auto dtype =
        gemm_dtype(gemm, device,
                   gpu ? std::vector<std::string>{"bf16", "fp16", "fp32"} : std::vector<std::string>{"fp64", "fp32"});
    if (!dtype.empty() && gemm.unsupported_reason(device).empty()) {
      options.benchmarks.emplace_back("gemm");
      for (const char* dim : {"M", "N", "K"})
        options.overrides.push_back(core::parse_axis_override(fmt::format("gemm:{}={}", dim, gpu ? 8192 : 2048)));
      options.overrides.push_back(core::parse_axis_override("gemm:dtype=" + dtype));
    }
    if (stream.unsupported_reason(device).empty()) {
      options.benchmarks.emplace_back("stream");
      options.overrides.push_back(core::parse_axis_override("stream:kernel=triad"));
      if (gpu) options.overrides.push_back(core::parse_axis_override("stream:size=1G"));
    }
    if (options.benchmarks.empty()) continue;
    device_work work{device, {}};
    for (auto& planned : core::plan_run(benchmarks, {device}, options)) {
      if (!planned.skip_reason.empty()) continue;
      auto label = label_of(planned);
      work.workloads.push_back({std::move(planned), std::move(label)});
    }
    if (!work.workloads.empty()) out.push_back(std::move(work));
  }
  return out;
}

// How many workloads the busiest device runs per interval: each gets that share of the interval.
std::size_t workloads_per_device(const std::vector<device_work>& plan) {
  std::size_t most = 0;
  for (const auto& d : plan) most = std::max(most, d.workloads.size());
  return most;
}

// Each case of an interval measures for `share` seconds: no stop on low noise, no warm-up past
// the first interval (the device is already busy).
core::measurement_settings interval_settings(double share, bool first) {
  core::measurement_settings m;
  m.warmup_s = first ? 0.2 : 0;
  m.min_warmup_reps = first ? 1 : 0;
  m.min_reps = 1;
  m.max_reps = 100000000;
  m.min_time_s = share;
  m.max_time_s = share;
  m.target_cv = 0;
  m.unstable_cv = 0;
  return m;
}

std::optional<double> metric_of(const core::case_result& c, const std::string& name) {
  if (const auto* m = c.find_metric(name)) return m->value;
  return std::nullopt;
}

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::string number_text(const std::optional<double>& v, const char* unit, int digits = 0) {
  return v ? fmt::format("{:.{}f} {}", *v, digits, unit) : std::string("n/a");
}

// What one device did in one interval.
struct device_interval {
  std::vector<core::case_result> cases;
  std::optional<double> clock_mhz, temperature_c, power_w;
  std::string sensor_source;
  std::vector<std::string> not_available;
};

struct interval_record {
  double start_s = 0;
  double duration_s = 0;
  std::vector<device_interval> devices;  ///< in the order of the plan
  telemetry::error_delta errors;
};

// The GPU's sensors as its cases' telemetry saw them: mean SM clock and power, hottest sample.
void gpu_sensors(device_interval& d) {
  std::vector<double> clocks, powers;
  for (const auto& c : d.cases) {
    if (const auto v = metric_of(c, "sm_clock_mhz")) clocks.push_back(*v);
    if (const auto v = metric_of(c, "power_w")) powers.push_back(*v);
    if (const auto v = metric_of(c, "temperature_max_c"); v && (!d.temperature_c || *v > *d.temperature_c))
      d.temperature_c = v;
  }
  const auto mean = [](const std::vector<double>& v) -> std::optional<double> {
    if (v.empty()) return std::nullopt;
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  d.clock_mhz = mean(clocks);
  d.power_w = mean(powers);
  d.sensor_source = "the GPU's management library";
  if (clocks.empty()) d.not_available.emplace_back("GPU telemetry: see the cases' telemetry for why");
}

std::string error_device_of(const core::device_info& d) { return core::is_gpu(d) ? d.id : std::string("host"); }

std::string errors_text(const telemetry::error_delta& delta, const std::string& device) {
  std::vector<std::string> parts;
  for (const auto& c : delta.rises) {
    if (c.device == device) parts.push_back(fmt::format("{} +{}", c.counter, c.after - c.before));
  }
  if (const auto it = delta.xids.find(device); it != delta.xids.end()) {
    for (const auto code : it->second) parts.push_back(fmt::format("XID {}", code));
  }
  return parts.empty() ? "none" : join(parts, ", ");
}

std::string interval_line(std::size_t index, std::size_t total, const interval_record& r,
                          const std::vector<device_work>& plan) {
  std::string line = fmt::format("burn-in interval {}/{} ({:.1f} s)", index + 1, total, r.duration_s);
  for (std::size_t d = 0; d < plan.size(); ++d) {
    const auto& di = r.devices[d];
    std::vector<std::string> parts;
    for (std::size_t w = 0; w < plan[d].workloads.size() && w < di.cases.size(); ++w) {
      const auto& c = di.cases[w];
      const auto* m = c.find_metric(judged_metric(c.benchmark));
      if (c.status == core::case_status::valid && m != nullptr) {
        parts.push_back(fmt::format("{} {:.4g} {}", plan[d].workloads[w].label, m->value, m->unit));
      } else {
        parts.push_back(fmt::format("{} {}: {}", plan[d].workloads[w].label, core::to_string(c.status), c.reason));
      }
    }
    line += fmt::format("\n  {}: {}; clock {}, temperature {}, power {}, errors {}", plan[d].device.id,
                        join(parts, ", "), number_text(di.clock_mhz, "MHz"), number_text(di.temperature_c, "C"),
                        number_text(di.power_w, "W", 1), errors_text(r.errors, error_device_of(plan[d].device)));
  }
  return line;
}

json interval_json(std::size_t index, const interval_record& r, const std::vector<device_work>& plan) {
  json devices = json::array();
  for (std::size_t d = 0; d < plan.size(); ++d) {
    const auto& di = r.devices[d];
    json workloads = json::array();
    for (std::size_t w = 0; w < plan[d].workloads.size() && w < di.cases.size(); ++w) {
      const auto& c = di.cases[w];
      json one = {{"workload", plan[d].workloads[w].label}, {"status", core::to_string(c.status)}};
      if (const auto* m = c.find_metric(judged_metric(c.benchmark))) {
        one["value"] = m->value;
        one["unit"] = m->unit;
      }
      if (!c.reason.empty()) one["reason"] = c.reason;
      workloads.push_back(std::move(one));
    }
    const auto device = error_device_of(plan[d].device);
    telemetry::error_delta mine;
    for (const auto& c : r.errors.rises) {
      if (c.device == device) mine.rises.push_back(c);
    }
    if (const auto it = r.errors.xids.find(device); it != r.errors.xids.end()) mine.xids[device] = it->second;
    json errors = telemetry::to_json(mine);
    errors.erase("resets");
    devices.push_back({{"device", plan[d].device.id},
                       {"throughput", workloads},
                       {"clock_mhz", optional_json(di.clock_mhz)},
                       {"temperature_c", optional_json(di.temperature_c)},
                       {"power_w", optional_json(di.power_w)},
                       {"sensors", di.sensor_source},
                       {"not_available", di.not_available},
                       {"errors", errors}});
  }
  return {{"index", index + 1}, {"start_s", r.start_s}, {"duration_s", r.duration_s}, {"devices", devices}};
}

// The rows of the burn-in's own judgements: each workload's throughput, each device's errors.
std::vector<check_row> burn_in_rows(const std::vector<interval_record>& intervals, const std::vector<device_work>& plan,
                                    const burn_in_bounds& bounds, const std::vector<std::string>& error_devices,
                                    json& judgements) {
  std::vector<check_row> rows;
  std::vector<telemetry::error_delta> deltas;
  for (const auto& r : intervals) deltas.push_back(r.errors);
  for (std::size_t d = 0; d < plan.size(); ++d) {
    for (std::size_t w = 0; w < plan[d].workloads.size(); ++w) {
      check_row row;
      row.check = "burn-in " + plan[d].workloads[w].label;
      row.device = plan[d].device.id;
      std::vector<double> values;
      std::string failure;
      for (std::size_t i = 0; i < intervals.size(); ++i) {
        const auto& c = intervals[i].devices[d].cases.at(w);
        const auto* m = c.find_metric(judged_metric(c.benchmark));
        if (c.status != core::case_status::valid || m == nullptr) {
          if (failure.empty()) failure = fmt::format("interval {}: {}: {}", i + 1, core::to_string(c.status), c.reason);
          continue;
        }
        values.push_back(m->value);
        row.unit = m->unit;
      }
      const auto j = judge_throughput(values, bounds);
      row.result = j.result;
      row.rule = j.rule;
      if (!values.empty()) row.measured = j.last_median > 0 ? j.last_median : values.back();
      if (!failure.empty()) {
        row.result = verdict::fail;
        row.rule = failure + ": FAIL; " + row.rule;
      }
      judgements.push_back({{"check", row.check},
                            {"device", row.device},
                            {"values", values},
                            {"first_median", j.first_median},
                            {"last_median", j.last_median},
                            {"drop", j.drop},
                            {"cv", j.cv},
                            {"verdict", to_string(row.result)},
                            {"rule", row.rule}});
      rows.push_back(std::move(row));
    }
  }
  for (const auto& device : error_devices) {
    const auto j = judge_errors(device, deltas, bounds);
    check_row row;
    row.check = "burn-in hardware errors";
    row.device = device;
    row.result = j.result;
    row.rule = j.rule;
    judgements.push_back({{"check", row.check},
                          {"device", device},
                          {"corrected", j.corrected},
                          {"uncorrected", j.uncorrected},
                          {"other", j.other},
                          {"xids", j.xids},
                          {"verdict", to_string(j.result)},
                          {"rule", j.rule}});
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

bool next_interval_fits(std::size_t measured, double elapsed_s, double last_interval_s, double duration_s,
                        double interval_s) {
  if (measured < 2) return true;  // a burn-in compares intervals: two always run
  return elapsed_s + last_interval_s <= duration_s + interval_s;
}

void check_burn_in_settings(const validation_settings& s) {
  check_bounds(s.burn_in);
  if (!(s.burn_in_interval_s >= 1)) {
    throw usage_error(fmt::format("--interval must be at least 1s, not {:g}s", s.burn_in_interval_s));
  }
  if (!(s.burn_in_duration_s >= 2 * s.burn_in_interval_s)) {
    throw usage_error(
        fmt::format("--duration ({:g}s) must be at least two --interval ({:g}s): a burn-in compares "
                    "intervals",
                    s.burn_in_duration_s, s.burn_in_interval_s));
  }
}

namespace {

/// The first line: what runs on which device, for how long, and what fails it.
void announce_plan(const std::vector<device_work>& plan, std::size_t total, const validation_settings& s,
                   const burn_in_line& line) {
  std::vector<std::string> described;
  for (const auto& d : plan) {
    std::vector<std::string> labels;
    for (const auto& w : d.workloads) labels.push_back(w.label);
    described.push_back(d.device.id + " (" + join(labels, ", ") + ")");
  }
  line(
      fmt::format("burn-in: {} intervals of {:g} s on {}; FAIL on a drop of more than {:g} % (the last intervals' "
                  "median against the first ones'), a CV above {:g} %, corrected errors rising by more than {}, "
                  "or any uncorrected error",
                  total, s.burn_in_interval_s, join(described, ", "), s.burn_in.max_drop * 100, s.burn_in.max_cv * 100,
                  s.burn_in.max_corrected));
  if (s.burn_in_interval_s < steady_interval_s) {
    line(fmt::format("note: intervals under {:g} s are noisier: each workload measures {:.1f} s or less per interval",
                     steady_interval_s, s.burn_in_interval_s / static_cast<double>(workloads_per_device(plan))));
  }
}

/// The intervals, one after another, each device's workloads on a thread of their own; stops
/// early on an interrupt, or when another interval would end past --duration plus one --interval.
class interval_loop {
 public:
  interval_loop(const std::vector<device_work>& plan, const session::live_host& host, const validation_settings& s,
                const std::atomic<bool>* cancel)
      : plan_(plan),
        host_(host),
        s_(s),
        cancel_(cancel),
        per_device_(workloads_per_device(plan)),
        previous_errors_(host.hardware_errors_before) {
    options_.cancel = cancel;
    options_.monitor = session::case_monitors(std::chrono::milliseconds(100));
  }

  void run(std::size_t total, const burn_in_line& line) {
    const auto started = clock_type::now();
    for (std::size_t i = 0; i < total; ++i) {
      if (cancelled()) break;
      auto r = measure(i, started);
      if (cancelled()) break;  // an interval cut short is not judged
      line(interval_line(i, total, r, plan_));
      intervals_.push_back(std::move(r));
      const double elapsed = std::chrono::duration<double>(clock_type::now() - started).count();
      if (i + 1 < total && !next_interval_fits(intervals_.size(), elapsed, intervals_.back().duration_s,
                                               s_.burn_in_duration_s, s_.burn_in_interval_s)) {
        stopped_early_ = fmt::format(
            "stopped after {} of {} intervals: the intervals took {:.1f} s (setup and verification beyond the "
            "{:g}-s interval), and another would end past --duration plus one --interval ({:g} s)",
            intervals_.size(), total, intervals_.back().duration_s, s_.burn_in_interval_s,
            s_.burn_in_duration_s + s_.burn_in_interval_s);
        line("note: " + stopped_early_);
        break;
      }
    }
  }

  [[nodiscard]] const std::vector<interval_record>& intervals() const { return intervals_; }
  /// Why fewer intervals than planned ran (empty: all ran, or an interrupt stopped them).
  [[nodiscard]] const std::string& stopped_early() const { return stopped_early_; }
  /// The devices whose hardware error counters were read ("host" for the EDAC counters).
  [[nodiscard]] std::vector<std::string> error_devices() const {
    std::vector<std::string> out;
    for (const auto& d : previous_errors_.devices) out.push_back(d.device);
    return out;
  }

 private:
  [[nodiscard]] bool cancelled() const { return cancel_ != nullptr && cancel_->load(); }

  interval_record measure(std::size_t i, clock_type::time_point started) {
    interval_record r;
    const auto t0 = clock_type::now();
    r.start_s = std::chrono::duration<double>(t0 - started).count();
    const double share = std::max(0.2, (s_.burn_in_interval_s - overhead_s_) / static_cast<double>(per_device_));
    auto options_now = options_;
    options_now.settings = interval_settings(share, i == 0);
    const auto sensors_before = read_host_sensors(sysfs_);
    r.devices.resize(plan_.size());
    std::vector<std::thread> threads;
    for (std::size_t d = 0; d < plan_.size(); ++d) {
      threads.emplace_back([&, d] {
        for (const auto& w : plan_[d].workloads) r.devices[d].cases.push_back(core::run_case(w.planned, options_now));
      });
    }
    for (auto& t : threads) t.join();
    r.duration_s = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (cancelled()) return r;
    read_sensors(r, sensors_before);
    if (host_.hardware_errors) {
      auto now = host_.hardware_errors->read();
      r.errors = telemetry::delta_between(previous_errors_, now);
      previous_errors_ = std::move(now);
    }
    // The next interval's measurements get what the interval leaves after this one's setup and
    // verification (allocating, filling and checking large arrays on a busy host can take
    // longer than the interval: then they get the 0.2-s floor).
    overhead_s_ = std::max(0.0, r.duration_s - share * static_cast<double>(per_device_));
    return r;
  }

  // Clocks, temperatures and power: the GPUs' own sensors, the host's for the CPU.
  void read_sensors(interval_record& r, const host_sensor_reading& before) const {
    const auto after = read_host_sensors(sysfs_);
    for (std::size_t d = 0; d < plan_.size(); ++d) {
      auto& di = r.devices[d];
      if (core::is_gpu(plan_[d].device)) {
        gpu_sensors(di);
        continue;
      }
      di.clock_mhz = after.clock_mhz;
      di.temperature_c = after.temperature_c;
      di.power_w = power_between(before, after, r.duration_s);
      di.sensor_source = after.clock_source;
      if (!after.temperature_source.empty()) di.sensor_source += "; " + after.temperature_source;
      if (di.power_w) di.sensor_source += "; RAPL package energy";
      di.not_available = after.not_available;
    }
  }

  const std::vector<device_work>& plan_;
  const session::live_host& host_;
  const validation_settings& s_;
  const std::atomic<bool>* cancel_;
  std::size_t per_device_;
  core::run_options options_;
  const platform::sysfs_reader sysfs_{"/"};
  telemetry::error_counter_reading previous_errors_;
  std::vector<interval_record> intervals_;
  double overhead_s_ = 0;  // the previous interval's time outside the measurements (setup, verification)
  std::string stopped_early_;
};

/// The report's rows: the intervals judged against each other, hardware errors the host cannot
/// show, and the last interval's cases against the expected values; then the overall verdict.
void judge_burn_in(validation_report& report, const std::vector<interval_record>& intervals,
                   const std::vector<device_work>& plan, const validation_settings& s,
                   const std::vector<std::string>& error_devices, json& judgements) {
  report.rows = burn_in_rows(intervals, plan, s.burn_in, error_devices, judgements);
  for (const auto& d : plan) {
    if (!core::is_gpu(d.device) &&
        std::find(error_devices.begin(), error_devices.end(), "host") == error_devices.end()) {
      check_row row;
      row.check = "burn-in hardware errors";
      row.device = d.device.id;
      row.result = verdict::skip;
      row.rule = "not available: the host exposes no EDAC memory error counters (sys/devices/system/edac/mc)";
      report.rows.push_back(std::move(row));
    }
  }
  const std::string cpu_isa =
      doctor::to_string(doctor::widest_isa(platform::detect_cpu(platform::sysfs_reader("/")).isa));
  for (auto& row : judge_run(report.run, report.rules, nullptr, cpu_isa)) report.rows.push_back(std::move(row));
  report.overall = summary_verdict(report.rows);
}

/// settings.validation.burn_in: the bounds, every interval and every judgement.
json burn_in_json(const validation_settings& s, std::size_t total, const std::vector<interval_record>& intervals,
                  const std::vector<device_work>& plan, const std::string& stopped_early, const json& judgements) {
  json interval_list = json::array();
  for (std::size_t i = 0; i < intervals.size(); ++i) interval_list.push_back(interval_json(i, intervals[i], plan));
  const bool noisy = s.burn_in_interval_s < steady_interval_s;
  return {
      {"duration_s", s.burn_in_duration_s},
      {"interval_s", s.burn_in_interval_s},
      {"intervals_planned", total},
      {"intervals_measured", intervals.size()},
      {"stopped_early", stopped_early},
      {"interval_note", noisy ? fmt::format("intervals under {:g} s are noisier", steady_interval_s) : std::string()},
      {"bounds",
       {{"max_drop", s.burn_in.max_drop},
        {"max_cv", s.burn_in.max_cv},
        {"max_corrected", s.burn_in.max_corrected},
        {"reference_intervals", reference_intervals(intervals.size())}}},
      {"judgements", judgements},
      {"intervals", interval_list}};
}

}  // namespace

validation_report burn_in_this_machine(const validation_settings& s, const std::vector<std::string>& argv,
                                       const std::atomic<bool>* cancel, const burn_in_line& line) {
  check_burn_in_settings(s);
  validation_report report;
  report.lvl = level::burn_in;
  report.rules = rules_of(s);
  report.expectations = "data/expected_values.json";

  const auto host = session::detect_live_host();
  std::vector<std::string> share_notes;
  const auto devices =
      take_host_share(device::select_devices(host.devices, s.devices), s.share, s.devices == "all", share_notes);
  for (const auto& note : share_notes) line("note: " + note);
  core::registry registry;
  benchmarks::register_builtin_benchmarks(registry);
  const auto plan = plan_burn_in(registry, devices);
  if (plan.empty()) throw usage_error("--level burn-in: no selected device runs gemm or stream");
  const auto total =
      static_cast<std::size_t>(std::max<long>(2, std::lround(s.burn_in_duration_s / s.burn_in_interval_s)));
  announce_plan(plan, total, s, line);

  auto& run = report.run;
  run = session::start_run(argv, host, std::chrono::system_clock::now());
  run.devices = devices;
  const auto before = doctor::live_host_counters();
  interval_loop loop(plan, host, s, cancel);
  loop.run(total, line);

  // The run's cases are the last interval's measurements (judged against the expected values
  // as validate judges any case); every interval is in settings.validation.burn_in.
  const auto& intervals = loop.intervals();
  if (!intervals.empty()) {
    for (const auto& di : intervals.back().devices) {
      for (const auto& c : di.cases) run.cases.push_back(c);
    }
  }
  std::vector<core::planned_case> planned;
  for (const auto& d : plan) {
    for (const auto& w : d.workloads) planned.push_back(w.planned);
  }
  run.findings = doctor::run_findings(run, before, core::host_memory_needed(planned));
  session::finish_run(run, host);
  if (cancel != nullptr && cancel->load()) core::mark_interrupted(run, "the intervals measured so far");

  json judgements = json::array();
  judge_burn_in(report, intervals, plan, s, loop.error_devices(), judgements);
  report.burn_in = burn_in_json(s, total, intervals, plan, loop.stopped_early(), judgements);
  if (!share_notes.empty()) run.settings["host_share"] = share_notes.front();
  run.settings["validation"] = to_json(report);
  return report;
}

}  // namespace ironbench::validate
