// Published peaks of known GPUs, and peaks computed from clocks and units for the others.
// Pure C++ (no GPU runtime), so that the tables are tested everywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace ironbench::device {

/// Matrix element types whose peaks the tables know, as named on the command line.
/// fp32 means FP32 without TF32 (CUDA cores on NVIDIA, matrix cores on AMD).
inline const std::vector<std::string> gpu_peak_dtypes = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};

/// The vendor's dense (no sparsity) peaks of one GPU model. A zero peak means the datasheet
/// gives none for that type.
struct gpu_datasheet {
  std::string model;                    ///< "H100 SXM", "MI300X"
  std::vector<std::string> name_parts;  ///< all of these appear in the device name (any case)
  double fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops;
  double memory_gb_per_s;  ///< HBM bandwidth, GB/s (1e9 B/s)
  int units;               ///< SMs or CUs of the whole chip the figures are for
  std::string source;      ///< the datasheet the numbers come from

  /// TFLOP/s of `dtype` (one of gpu_peak_dtypes); 0 when unknown.
  [[nodiscard]] double tflops(std::string_view dtype) const;
};

/// Every GPU model with published figures (A100, H100 SXM/PCIe/NVL, H200 SXM/NVL, GH200,
/// GB200, B200, L40S, MI250X, MI300X, MI325X, MI350X, MI355X). More specific entries come first.
[[nodiscard]] const std::vector<gpu_datasheet>& gpu_datasheets();

/// The datasheet entry whose name parts all appear in `device_name`, if any.
[[nodiscard]] const gpu_datasheet* find_gpu_datasheet(std::string_view device_name);

/// Dense FLOP per clock per SM (NVIDIA) or CU (AMD) of `dtype` on architecture `arch`
/// ("sm_90", "gfx942"); nullopt when the architecture is unknown, 0 when the architecture
/// has no matrix support for the type (fp8 before Ada/CDNA3, tf32 on CDNA2 and CDNA4).
[[nodiscard]] std::optional<double> flops_per_clock_per_unit(std::string_view arch, std::string_view dtype);

/// What the enumeration knows of a GPU, for computing its peaks.
struct gpu_peak_inputs {
  std::string name;  ///< marketing name
  std::string arch;  ///< "sm_90", "gfx942"
  int units = 0;     ///< SMs or CUs
  double max_clock_mhz = 0;
  double memory_clock_mhz = 0;  ///< as the runtime reports it (data rate is twice this)
  int memory_bus_bits = 0;
};

/// Peak FLOP/s per dtype: {"bf16": {"flops_per_second": 9.894e14, "source": "..."}, ...}.
/// From the datasheet when the model is known, else computed as units x clock x FLOP/clock
/// (the source says which). A partition of a known GPU (a MIG instance, an AMD compute
/// partition: fewer units than the whole chip) gets the datasheet's peak times its share of
/// the units. Types the device cannot run get flops_per_second null and the reason in "source".
[[nodiscard]] json gpu_peak_flops(const gpu_peak_inputs& gpu);

/// Peak memory bandwidth: {"bytes_per_second": ..., "source": ...}, from the datasheet when
/// known, else 2 x memory clock x bus width; null when neither is available. For a partition
/// the whole GPU's bandwidth is given, and the source says so (a partition's share of it
/// depends on the memory partitioning, which the runtime does not report).
[[nodiscard]] json gpu_peak_bandwidth(const gpu_peak_inputs& gpu);

}  // namespace ironbench::device
