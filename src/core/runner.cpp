#include "core/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <new>

#include "core/case_stability.hpp"
#include "core/case_state.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"
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
