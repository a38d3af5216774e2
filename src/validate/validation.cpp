#include "validate/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

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

check_row case_row(const core::case_result& c, const core::run_result& run, const verdict_rules& rules,
                   const run_expectations* expectations, const std::string& cpu_isa) {
  check_row row;
  row.check = check_name(c);
  row.device = c.device;
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
  const auto* device = device_named(run, c.device);
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

json rules_json(const verdict_rules& rules) {
  return {{"warn_below", rules.warn_below},
          {"fail_below", rules.fail_below},
          {"text", fmt::format("PASS at or above {:g} x expected; WARN below it; FAIL below {:g} x expected; a case "
                               "that fails or does not verify FAILs; an unstable case that would PASS WARNs; doctor: "
                               "critical FAIL, warning WARN, info PASS",
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
      check_row row;
      row.check = std::string("doctor: ") + check.id;
      row.device = f.device;
      row.result = verdict_of(f.level);
      row.rule = fmt::format("{}: {} (fix: {})", doctor::to_string(f.level), f.summary, f.fix);
      rows.push_back(std::move(row));
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
  const auto devices = device::select_devices(host.devices, s.devices);
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
  const auto before = doctor::live_host_counters();
  core::execute_plan(plan, options, run, progress);
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
              {"checks", checks}};
  if (!report.burn_in.is_null()) out["burn_in"] = report.burn_in;
  return out;
}

}  // namespace ironbench::validate
