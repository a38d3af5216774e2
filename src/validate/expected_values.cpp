#include "validate/expected_values.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "core/error.hpp"
#include "device/gpu/gpu_specs.hpp"

namespace ironbench::validate {
namespace {

void require(bool condition, const std::string& what) {
  if (!condition) throw usage_error("data/expected_values.json: " + what);
}

void check_values(const json& values, const std::string& owner) {
  require(values.is_array() && !values.empty(), owner + ": \"values\" must be a non-empty list");
  for (const auto& v : values) {
    const auto benchmark = v.value("benchmark", "");
    require(!judged_metric(benchmark).empty(), owner + ": unknown benchmark '" + benchmark + "'");
    require(v.contains("dtype") || v.contains("kernel"),
            owner + ": an entry of " + benchmark + " names no dtype or kernel");
    const bool fixed = v.contains("value") && v["value"].is_number() && v["value"].get<double>() > 0;
    const bool fraction = v.contains("peak_fraction") && v["peak_fraction"].is_number() &&
                          v["peak_fraction"].get<double>() > 0 && v["peak_fraction"].get<double>() <= 1;
    require(fixed != fraction, owner + ": an entry needs either a positive value or a peak_fraction in (0, 1]");
    require(!fixed || v.value("unit", "") == (benchmark == "gemm" ? "TFLOP/s" : "GB/s"),
            owner + ": a gemm value is in TFLOP/s, a stream value in GB/s");
    require(!v.value("source", "").empty(), owner + ": every entry names its source");
  }
}

json load() {
  json table;
  try {
    table = json::parse(expected_values_text());
  } catch (const json::exception& e) {
    throw usage_error(std::string("data/expected_values.json is not valid JSON: ") + e.what());
  }
  require(table.value("schema_version", 0) == 1, "schema_version must be 1");
  const auto& rules = table.at("rules");
  require(rules.value("fail_below", 0.0) > 0 && rules.value("fail_below", 0.0) < rules.value("warn_below", 0.0) &&
              rules.value("warn_below", 0.0) <= 1,
          "rules need 0 < fail_below < warn_below <= 1");
  for (const auto& gpu : table.at("gpus")) {
    const auto model = gpu.value("model", "");
    bool known = false;
    for (const auto& sheet : device::gpu_datasheets()) known = known || sheet.model == model;
    require(known, "GPU model '" + model + "' has no datasheet in device/gpu/gpu_specs.cpp");
    if (gpu.contains("same_as")) continue;
    check_values(gpu.at("values"), model);
  }
  for (const auto& cpu : table.at("cpus")) check_values(cpu.at("values"), cpu.value("class", "?"));
  return table;
}

// The entries of GPU `model` (following "same_as").
const json* gpu_values(const std::string& model) {
  for (const auto& gpu : expected_values().at("gpus")) {
    if (gpu.value("model", "") != model) continue;
    if (gpu.contains("same_as")) return gpu_values(gpu["same_as"].get<std::string>());
    return &gpu.at("values");
  }
  return nullptr;
}

const json* cpu_values(const std::string& isa) {
  for (const auto& cpu : expected_values().at("cpus")) {
    if (cpu.value("isa", "") == isa) return &cpu.at("values");
  }
  return nullptr;
}

const json* entry_for(const json& values, const core::case_result& c) {
  for (const auto& v : values) {
    if (v.value("benchmark", "") != c.benchmark) continue;
    const char* key = v.contains("dtype") ? "dtype" : "kernel";
    if (!c.params.contains(key)) continue;
    if (core::to_string(c.params.at(key)) == v[key].get<std::string>()) return &v;
  }
  return nullptr;
}

double metric_value(const core::case_result& c, const std::string& name) {
  const auto* m = c.find_metric(name);
  return m != nullptr ? m->value : 0;
}

// The CPU's measured FMA rate for the dtype of GEMM case `c` (FLOP/s) and its source, from the
// device's measured_flops (device/cpu/cpu_device.hpp); nullopt for other benchmarks or without it.
std::optional<std::pair<double, std::string>> measured_cpu_flops(const core::device_info& cpu,
                                                                 const core::case_result& c) {
  if (c.benchmark != "gemm" || !c.params.contains("dtype")) return std::nullopt;
  const auto dtype = core::to_string(c.params.at("dtype"));
  const auto& p = cpu.properties;
  if (!p.contains("measured_flops") || !p["measured_flops"].is_object() || !p["measured_flops"].contains(dtype)) {
    return std::nullopt;
  }
  const auto& entry = p["measured_flops"][dtype];
  if (!entry.is_object() || !entry.contains("flops_per_second") || !entry["flops_per_second"].is_number()) {
    return std::nullopt;
  }
  const double flops = entry["flops_per_second"].get<double>();
  if (!(flops > 0)) return std::nullopt;
  return std::make_pair(flops, entry.value("source", std::string()));
}

}  // namespace

const json& expected_values() {
  static const json table = load();
  return table;
}

verdict_rules table_rules() {
  const auto& rules = expected_values().at("rules");
  return {rules.at("warn_below").get<double>(), rules.at("fail_below").get<double>()};
}

std::string judged_metric(std::string_view benchmark) {
  if (benchmark == "gemm") return "tflops";
  if (benchmark == "stream") return "bandwidth";
  return "";
}

std::optional<expectation> table_expectation(const core::case_result& measured, const core::device_info& device,
                                             const std::string& cpu_isa) {
  const auto metric = judged_metric(measured.benchmark);
  if (metric.empty()) return std::nullopt;
  const auto unit = measured.benchmark == "gemm" ? std::string("TFLOP/s") : std::string("GB/s");
  if (device.kind == core::device_kind::cpu) {
    const auto* values = cpu_values(cpu_isa);
    const auto* entry = values != nullptr ? entry_for(*values, measured) : nullptr;
    if (entry == nullptr || !entry->contains("peak_fraction")) return std::nullopt;
    const double fraction = entry->at("peak_fraction").get<double>();
    // A CPU entry is a fraction of the all-CPU FMA rate measured at the start of the run, where
    // there is one (it knows the clock under vector load and what the vCPUs share); else of the
    // peak model, which counts the cores this process may use.
    if (const auto measured_peak = measured_cpu_flops(device, measured)) {
      const double peak = measured_peak->first / 1e12;
      return expectation{peak * fraction, unit,
                         fmt::format("{:.0f} % of the measured FMA rate ({:.3g} {}: {}): {}", fraction * 100, peak,
                                     unit, measured_peak->second, entry->value("source", "")),
                         "table"};
    }
    const double percent = metric_value(measured, "peak_percent");
    if (percent <= 0) return std::nullopt;
    const double peak = metric_value(measured, metric) / (percent / 100);
    return expectation{peak * fraction, unit,
                       fmt::format("{:.0f} % of the CPU peak model ({:.3g} {}): {}", fraction * 100, peak, unit,
                                   entry->value("source", "")),
                       "table"};
  }
  const auto* sheet = device::find_gpu_datasheet(device.name);
  const auto* values = sheet != nullptr ? gpu_values(sheet->model) : nullptr;
  const auto* entry = values != nullptr ? entry_for(*values, measured) : nullptr;
  if (entry == nullptr) return std::nullopt;
  // A partition (MIG instance, AMD compute partition) has a share of the chip's units.
  const int units = device.properties.value("multiprocessors", 0);
  const double share = units > 0 && units < sheet->units ? static_cast<double>(units) / sheet->units : 1.0;
  const std::string scaled =
      share < 1 ? fmt::format("; scaled to this partition's {} of {} units", units, sheet->units) : std::string();
  if (entry->contains("value")) {
    return expectation{entry->at("value").get<double>() * share, unit, entry->value("source", "") + scaled, "table"};
  }
  const double fraction = entry->at("peak_fraction").get<double>();
  const double peak = measured.benchmark == "gemm" ? sheet->tflops(core::to_string(measured.params.at("dtype")))
                                                   : sheet->memory_gb_per_s;
  if (peak <= 0) return std::nullopt;
  return expectation{peak * fraction * share, unit,
                     fmt::format("{} {} ({:g} {}) x {:g}: {}{}", sheet->model, sheet->source, peak, unit, fraction,
                                 entry->value("source", ""), scaled),
                     "table"};
}

}  // namespace ironbench::validate
