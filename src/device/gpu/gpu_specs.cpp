#include "device/gpu/gpu_specs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/text.hpp"

namespace ironbench::device {
namespace {

// Dense FLOP per clock per SM/CU: fp64 fp32 tf32 fp16 bf16 fp8.
struct arch_rates {
  double fp64, fp32, tf32, fp16, bf16, fp8;
};

const std::map<std::string, arch_rates, std::less<>>& arch_table() {
  static const std::map<std::string, arch_rates, std::less<>> table = {
      {"sm_80", {128, 128, 1024, 2048, 2048, 0}},       // A100
      {"sm_89", {4, 256, 512, 1024, 1024, 2048}},       // L40S, RTX 4090 (fp32 accumulate)
      {"sm_90", {256, 256, 2048, 4096, 4096, 8192}},    // H100, H200
      {"sm_100", {128, 256, 4096, 8192, 8192, 16384}},  // B200
      {"gfx90a", {256, 256, 0, 1024, 1024, 0}},         // MI210, MI250X (per GCD)
      {"gfx942", {256, 256, 1024, 2048, 2048, 4096}},   // MI300X, MI325X
      {"gfx950", {128, 256, 0, 4096, 4096, 8192}},      // MI350X, MI355X
  };
  return table;
}

double pick(const arch_rates& r, std::string_view dtype) {
  if (dtype == "fp64") return r.fp64;
  if (dtype == "fp32") return r.fp32;
  if (dtype == "tf32") return r.tf32;
  if (dtype == "fp16") return r.fp16;
  if (dtype == "bf16") return r.bf16;
  if (dtype == "fp8") return r.fp8;
  return 0;
}

const char* unit_name(std::string_view arch) { return arch.rfind("gfx", 0) == 0 ? "CUs" : "SMs"; }

// A MIG instance or an AMD compute partition: the model's name, fewer of its units.
bool is_partition_of(const gpu_peak_inputs& gpu, const gpu_datasheet& sheet) {
  return gpu.units > 0 && gpu.units < sheet.units;
}

}  // namespace

double gpu_datasheet::tflops(std::string_view dtype) const {
  return pick({fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops}, dtype);
}

const std::vector<gpu_datasheet>& gpu_datasheets() {
  static const std::vector<gpu_datasheet> sheets = {
      {"A100 PCIe 80GB", {"a100", "pcie", "80gb"}, 9.7, 19.5, 156, 312, 312, 0, 1935, 108, "NVIDIA A100 datasheet"},
      {"A100 PCIe 40GB", {"a100", "pcie"}, 9.7, 19.5, 156, 312, 312, 0, 1555, 108, "NVIDIA A100 datasheet"},
      {"A100 SXM 80GB", {"a100", "80gb"}, 9.7, 19.5, 156, 312, 312, 0, 2039, 108, "NVIDIA A100 datasheet"},
      {"A100 SXM 40GB", {"a100"}, 9.7, 19.5, 156, 312, 312, 0, 1555, 108, "NVIDIA A100 datasheet"},
      {"H100 PCIe", {"h100", "pcie"}, 26, 51, 378, 756, 756, 1513, 2000, 114, "NVIDIA H100 datasheet"},
      {"H100 NVL", {"h100", "nvl"}, 30, 60, 417.5, 835.5, 835.5, 1670.5, 3900, 132, "NVIDIA H100 datasheet"},
      {"H100 SXM", {"h100"}, 34, 67, 494.7, 989.4, 989.4, 1978.9, 3350, 132, "NVIDIA H100 datasheet"},
      {"GH200 144GB HBM3e",
       {"gh200", "144g"},
       34,
       67,
       494.7,
       989.4,
       989.4,
       1978.9,
       4900,
       132,
       "NVIDIA GH200 datasheet"},
      {"GH200 96GB HBM3", {"gh200"}, 34, 67, 494.7, 989.4, 989.4, 1978.9, 4000, 132, "NVIDIA GH200 datasheet"},
      {"H200 NVL", {"h200", "nvl"}, 30, 60, 417.5, 835.5, 835.5, 1670.5, 4800, 132, "NVIDIA H200 datasheet"},
      {"H200 SXM", {"h200"}, 34, 67, 494.7, 989.4, 989.4, 1978.9, 4800, 132, "NVIDIA H200 datasheet"},
      // GB200 before B200: "gb200" contains "b200". Per GPU: the NVL72 rack's dense figures / 72.
      {"GB200", {"gb200"}, 45, 0, 1250, 2500, 2500, 5000, 8000, 148, "NVIDIA GB200 NVL72 datasheet (per GPU)"},
      {"B200", {"b200"}, 37, 0, 1100, 2250, 2250, 4500, 8000, 148, "NVIDIA HGX B200 datasheet"},
      {"L40S", {"l40s"}, 0, 91.6, 183, 362.05, 362.05, 733, 864, 142, "NVIDIA L40S datasheet"},
      {"MI250X", {"mi250x"}, 47.9, 47.9, 0, 191.5, 191.5, 0, 1638, 110, "AMD Instinct MI250X datasheet (per GCD)"},
      {"MI300X", {"mi300x"}, 81.7, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 5300, 304, "AMD Instinct MI300X datasheet"},
      {"MI325X", {"mi325x"}, 81.7, 163.4, 653.7, 1307.4, 1307.4, 2614.9, 6000, 304, "AMD Instinct MI325X datasheet"},
      {"MI350X", {"mi350x"}, 72.1, 144.2, 0, 2306.9, 2306.9, 4613.7, 8000, 256, "AMD Instinct MI350X datasheet"},
      {"MI355X", {"mi355x"}, 78.6, 157.3, 0, 2516.6, 2516.6, 5033.2, 8000, 256, "AMD Instinct MI355X datasheet"},
  };
  return sheets;
}

const gpu_datasheet* find_gpu_datasheet(std::string_view device_name) {
  const auto name = ascii_lower(device_name);
  for (const auto& sheet : gpu_datasheets()) {
    const bool all = std::all_of(sheet.name_parts.begin(), sheet.name_parts.end(),
                                 [&](const std::string& part) { return name.find(part) != std::string::npos; });
    if (all) return &sheet;
  }
  return nullptr;
}

std::optional<double> flops_per_clock_per_unit(std::string_view arch, std::string_view dtype) {
  const auto it = arch_table().find(arch);
  if (it == arch_table().end()) return std::nullopt;
  return pick(it->second, dtype);
}

json gpu_peak_flops(const gpu_peak_inputs& gpu) {
  json peaks = json::object();
  const auto* sheet = find_gpu_datasheet(gpu.name);
  for (const auto& dtype : gpu_peak_dtypes) {
    const auto rate = flops_per_clock_per_unit(gpu.arch, dtype);
    if (rate && *rate == 0) {
      peaks[dtype] = {{"flops_per_second", nullptr},
                      {"source", fmt::format("{} has no dense {} matrix support", gpu.arch, dtype)}};
      continue;
    }
    if (sheet != nullptr && sheet->tflops(dtype) > 0) {
      if (is_partition_of(gpu, *sheet)) {
        peaks[dtype] = {{"flops_per_second", sheet->tflops(dtype) * 1e12 * gpu.units / sheet->units},
                        {"source", fmt::format("{} ({}, dense) x {}/{} {}: a partition", sheet->source, sheet->model,
                                               gpu.units, sheet->units, unit_name(gpu.arch))}};
      } else {
        peaks[dtype] = {{"flops_per_second", sheet->tflops(dtype) * 1e12},
                        {"source", fmt::format("{} ({}, dense)", sheet->source, sheet->model)}};
      }
      continue;
    }
    if (rate && gpu.units > 0 && gpu.max_clock_mhz > 0) {
      peaks[dtype] = {
          {"flops_per_second", gpu.units * gpu.max_clock_mhz * 1e6 * *rate},
          {"source", fmt::format("computed: {} {} x {:.0f} MHz x {:.0f} FLOP/clock ({} {} dense)", gpu.units,
                                 unit_name(gpu.arch), gpu.max_clock_mhz, *rate, gpu.arch, dtype)}};
      continue;
    }
    peaks[dtype] = {
        {"flops_per_second", nullptr},
        {"source", fmt::format("unknown: no datasheet for '{}' and no {} rate for '{}'", gpu.name, dtype, gpu.arch)}};
  }
  return peaks;
}

json gpu_peak_bandwidth(const gpu_peak_inputs& gpu) {
  if (const auto* sheet = find_gpu_datasheet(gpu.name); sheet != nullptr && sheet->memory_gb_per_s > 0) {
    if (is_partition_of(gpu, *sheet)) {
      return {{"bytes_per_second", sheet->memory_gb_per_s * 1e9},
              {"source", fmt::format("{} ({}), the whole GPU's: this partition has {} of its {} {}", sheet->source,
                                     sheet->model, gpu.units, sheet->units, unit_name(gpu.arch))}};
    }
    return {{"bytes_per_second", sheet->memory_gb_per_s * 1e9},
            {"source", fmt::format("{} ({})", sheet->source, sheet->model)}};
  }
  if (gpu.memory_clock_mhz > 0 && gpu.memory_bus_bits > 0) {
    return {
        {"bytes_per_second", 2 * gpu.memory_clock_mhz * 1e6 * gpu.memory_bus_bits / 8},
        {"source", fmt::format("computed: 2 x {:.0f} MHz x {} bit bus", gpu.memory_clock_mhz, gpu.memory_bus_bits)}};
  }
  return {{"bytes_per_second", nullptr}, {"source", "unknown: no datasheet and no memory clock"}};
}

}  // namespace ironbench::device
