#include "validate/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <map>
#include <optional>

#include "benchmarks/builtin.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/result_json.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "device/device_enumeration.hpp"
#include "doctor/checks.hpp"
#include "doctor/examine.hpp"
#include "doctor/gather_facts.hpp"
#include "doctor/live_facts.hpp"
#include "platform/cpu_info.hpp"
#include "session/case_monitors.hpp"
#include "session/live_host.hpp"
#include "session/run_setup.hpp"
#include "validate/expected_values.hpp"

namespace ironbench::validate {
namespace {

std::string param_text(const core::case_result& c, const char* name) {
  return c.params.contains(name) ? core::to_string(c.params.at(name)) : "?";
}

// "gemm bf16 4096x4096x4096 (cublaslt)", "stream triad fp64 1G"
std::string check_name(const core::case_result& c) {
  std::string name = c.benchmark;
  std::vector<std::string> rest;
  if (c.benchmark == "gemm") {
    name +=
        fmt::format(" {} {}x{}x{}", param_text(c, "dtype"), param_text(c, "M"), param_text(c, "N"), param_text(c, "K"));
  } else if (c.benchmark == "stream") {
    name += fmt::format(" {} {}", param_text(c, "kernel"), param_text(c, "dtype"));
    if (c.params.contains("size")) {
      name += " " + format_bytes(static_cast<double>(std::get<std::int64_t>(c.params.at("size"))));
    }
  }
  for (const auto& [key, value] : c.params.entries()) {
    if (key == "dtype" || key == "M" || key == "N" || key == "K" || key == "kernel" || key == "size") continue;
    rest.push_back(key + "=" + core::to_string(value));
  }
  if (!rest.empty()) name += " (" + join(rest, ", ") + ")";
  return name;
}

const core::device_info* device_named(const core::run_result& run, const std::string& id) {
  for (const auto& d : run.devices) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

// The number at `path` in `j` (objects all the way), or nullopt.
std::optional<double> number_in(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return std::nullopt;
    at = &(*at)[key];
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

// "SM 1410 MHz (max 1980), 698 W of 700 W limit": what a GPU case's telemetry and its device
// say of the clock and power during the case; empty where neither has them.
std::string gpu_evidence(const core::case_result& c, const core::device_info& device) {
  const auto mean_of = [&](const char* metric) -> std::optional<double> {
    if (const auto* m = c.find_metric(metric)) return m->value;
    return number_in(c.telemetry, {metric, "mean"});
  };
  const auto clock = mean_of("sm_clock_mhz");
  const auto power = mean_of("power_w");
  auto max_clock = number_in(device.properties, {"sm_clock_max_mhz"});
  if (!max_clock) max_clock = number_in(device.properties, {"telemetry", "sm_clock_max_mhz"});
  const auto limit = number_in(device.properties, {"telemetry", "power_limit_w"});
  std::vector<std::string> parts;
  if (clock && max_clock) {
    parts.push_back(fmt::format("SM {:.0f} MHz (max {:.0f})", *clock, *max_clock));
  } else if (clock) {
    parts.push_back(fmt::format("SM {:.0f} MHz", *clock));
  }
  if (power && limit) {
    parts.push_back(fmt::format("{:.0f} W of {:.0f} W limit", *power, *limit));
  } else if (power) {
    parts.push_back(fmt::format("{:.0f} W", *power));
  } else if (limit) {
    parts.push_back(fmt::format("power limit {:.0f} W", *limit));
  }
  return join(parts, ", ");
}

check_row case_row(const core::case_result& c, const core::run_result& run, const verdict_rules& rules,
                   const run_expectations* expectations, const std::string& cpu_isa) {
  check_row row;
  row.check = check_name(c);
  row.device = c.device;
  const auto* device = device_named(run, c.device);
  // A skipped case measured nothing: the clock and power of its setup are no evidence.
  if (device != nullptr && core::is_gpu(*device) && c.benchmark == "gemm" && c.status != core::case_status::skipped) {
    row.evidence = gpu_evidence(c, *device);
  }
  switch (c.status) {
    case core::case_status::skipped:
      row.result = verdict::skip;
      row.rule = "skipped: " + c.reason;
      return row;
    case core::case_status::failed:
      row.result = verdict::fail;
      row.rule = "the case failed: " + c.reason;
      return row;
    case core::case_status::invalid:
      row.result = verdict::fail;
      row.rule = "invalid: " + c.reason;
      return row;
    case core::case_status::valid: break;
  }
  const auto metric = judged_metric(c.benchmark);
  if (const auto* m = c.find_metric(metric)) {
    row.measured = m->value;
    row.unit = m->unit;
  }
  if (expectations != nullptr) {
    row.expected = expectations->find(c);
  } else if (device != nullptr) {
    row.expected = table_expectation(c, *device, cpu_isa);
  }
  if (row.measured && row.expected) {
    judge(row, rules);
  } else {
    row.result = verdict::pass;
    row.rule = expectations != nullptr ? "verified; the reference has no matching case"
                                       : "verified; no expected value for this device, benchmark and dtype";
  }
  // An unstable case's median cannot vouch for the machine: a pass becomes a warning; a low
  // result stays as judged (the scatter is then one more sign of trouble).
  if (c.unstable) {
    if (row.result == verdict::pass) row.result = verdict::warn;
    row.rule += "; unstable: " + c.unstable->describe() + (row.result == verdict::warn ? ": WARN" : "");
  }
  return row;
}

verdict verdict_of(doctor::severity level) {
  switch (level) {
    case doctor::severity::critical: return verdict::fail;
    case doctor::severity::warning: return verdict::warn;
    case doctor::severity::info: return verdict::pass;
  }
  return verdict::warn;
}

// What `f` concerns, as doctor prints it: "gemm on cpu", "all on cuda:1", "collectives".
std::string concerns(const doctor::finding& f) {
  return join(f.affects, ", ") + (f.device.empty() ? std::string() : " on " + f.device);
}

// The checks of `run` that `f` affects, each once in the run's order: "gemm on cuda:0". Only
// cases the run measured count (a skipped case measured nothing).
std::vector<std::string> affected_checks(const doctor::finding& f, const core::run_result& run) {
  std::vector<std::string> out;
  for (const auto& c : run.cases) {
    if (c.status == core::case_status::skipped || !doctor::affects_case(f, c.benchmark, c.device)) continue;
    auto name = c.benchmark + " on " + c.device;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  }
  return out;
}

// A finding's row: its severity decides the verdict where it affects a check of `run`; one
// that affects none (the host's CPU GEMM kernels in a run of GPUs) passes and says so.
check_row finding_row(const doctor::finding& f, const core::run_result& run) {
  check_row row;
  row.check = "doctor: " + f.check;
  row.device = f.device;
  row.rule = fmt::format("{}: {} (fix: {})", doctor::to_string(f.level), f.summary, f.fix);
  const auto affected = affected_checks(f, run);
  if (affected.empty()) {
    row.result = verdict::pass;
    row.rule += fmt::format("; affects no check of this run ({})", concerns(f));
  } else {
    row.result = verdict_of(f.level);
    row.rule += "; affects " + join(affected, ", ");
  }
  return row;
}

json rules_json(const verdict_rules& rules) {
  return {{"warn_below", rules.warn_below},
          {"fail_below", rules.fail_below},
          {"text", fmt::format("PASS at or above {:g} x expected; WARN below it; FAIL below {:g} x expected; a case "
                               "that fails or does not verify FAILs; an unstable case that would PASS WARNs; doctor: "
                               "critical FAIL, warning WARN, info PASS, for the devices and checks a finding "
                               "affects; a finding that affects no check of the run PASSes",
                               rules.warn_below, rules.fail_below)}};
}

}  // namespace

std::vector<check_row> judge_run(const core::run_result& run, const verdict_rules& rules,
                                 const run_expectations* expectations, const std::string& cpu_isa) {
  std::vector<check_row> rows;
  for (const auto& c : run.cases) rows.push_back(case_row(c, run, rules, expectations, cpu_isa));
  for (const auto& check : doctor::doctor_checks()) {
    bool found = false;
    for (const auto& j : run.findings) {
      const auto f = doctor::finding_from_json(j);
      if (f.check != check.id) continue;
      found = true;
      rows.push_back(finding_row(f, run));
    }
    if (!found) {
      check_row row;
      row.check = std::string("doctor: ") + check.id;
      row.result = verdict::pass;
      row.rule = std::string("nothing found: ") + check.what;
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

validation_report validate_this_machine(const validation_settings& s, const std::vector<std::string>& argv,
                                        const std::atomic<bool>* cancel, const core::progress_callback& progress) {
  validation_report report;
  report.lvl = s.lvl;
  report.rules = rules_of(s);
  std::optional<run_expectations> reference;
  if (s.expect) reference.emplace(load_run_expectations(*s.expect, s.expect_factor, s.database));
  report.expectations = s.expect ? *s.expect : std::string("data/expected_values.json");

  const auto host = session::detect_live_host();
  std::vector<std::string> share_notes;
  const auto devices =
      take_host_share(device::select_devices(host.devices, s.devices), s.share, s.devices == "all", share_notes);
  core::registry registry;
  benchmarks::register_builtin_benchmarks(registry);
  const auto plan = plan_validation(s.lvl, registry, devices);

  auto& run = report.run;
  run = session::start_run(argv, host, std::chrono::system_clock::now());
  run.devices = devices;
  core::run_options options;
  options.settings = settings_of(s.lvl);
  options.cancel = cancel;
  options.monitor = session::case_monitors(std::chrono::milliseconds(100));
  run.settings = core::to_json(options.settings);
  if (!share_notes.empty()) run.settings["host_share"] = share_notes.front();
  const auto before = doctor::live_host_counters();
  report.left_running = core::execute_plan(plan, options, run, progress).left_running();
  run.findings = doctor::run_findings(run, before, core::host_memory_needed(plan));
  session::finish_run(run, host);

  const std::string cpu_isa =
      doctor::to_string(doctor::widest_isa(platform::detect_cpu(platform::sysfs_reader("/")).isa));
  report.rows = judge_run(run, report.rules, reference ? &*reference : nullptr, cpu_isa);
  report.overall = summary_verdict(report.rows);
  run.settings["validation"] = to_json(report);
  return report;
}

verdict_rules rules_of(const validation_settings& s) {
  auto rules = table_rules();
  if (s.warn_below) rules.warn_below = *s.warn_below;
  if (s.fail_below) rules.fail_below = *s.fail_below;
  if (!(rules.fail_below > 0 && rules.fail_below < rules.warn_below && rules.warn_below <= 1)) {
    throw usage_error(fmt::format("--fail-below ({:g}) and --warn-below ({:g}) need 0 < fail-below < warn-below <= 1",
                                  rules.fail_below, rules.warn_below));
  }
  return rules;
}

json to_json(const validation_report& report) {
  json checks = json::array();
  for (const auto& r : report.rows) checks.push_back(to_json(r));
  json out = {{"level", to_string(report.lvl)},
              {"verdict", to_string(report.overall)},
              {"exit_code", exit_code_of(report.overall)},
              {"rules", rules_json(report.rules)},
              {"expectations", report.expectations},
              {"decided_by", deciding_checks(report.rows)},
              {"checks", checks}};
  if (!report.burn_in.is_null()) out["burn_in"] = report.burn_in;
  return out;
}

}  // namespace ironbench::validate
