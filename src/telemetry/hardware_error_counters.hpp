// The counters that reveal failing hardware, read before and after a run (or a burn-in
// interval), and what rose between two readings: NVML's volatile ECC counts, remapped rows
// (or retired pages), PCIe replays and XID events; amdgpu's RAS error counts (ROCm SMI or the
// driver's sysfs). The reading itself is in hardware_error_watch.hpp; this file is pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace ironbench::telemetry {

/// How a counter's rise is judged (docs/reliability.md#hardware-error-deltas).
enum class error_class {
  corrected,    ///< an error the hardware corrected (ECC single-bit, rows remapped for correctable errors)
  uncorrected,  ///< data was lost (ECC double-bit, remapping failed, RAS "ue")
  pending,      ///< a retirement or remap waiting for the next GPU reset (0 or 1)
  link_replay,  ///< PCIe link-level retransmissions
};

[[nodiscard]] const char* to_string(error_class c);

/// The class of a counter by its name: "ecc_corrected_volatile", "ras_umc_ce", "edac_mc0_ce" (corrected);
/// "ecc_uncorrected_volatile", "remapped_rows_uncorrectable", "remapping_failed", "ras_*_ue", "edac_*_ue"
/// (uncorrected); "remapped_rows_pending", "retired_pages_pending" (pending); "pcie_replays"
/// (link_replay). Unknown names are uncorrected (the cautious reading).
[[nodiscard]] error_class class_of(const std::string& counter);

/// One device's counters at one moment.
struct device_error_counters {
  std::string device;  ///< "cuda:0", "hip:1"
  std::string source;  ///< "nvml", "rocm_smi", "amdgpu sysfs"
  std::map<std::string, std::uint64_t> counters;
  std::vector<unsigned> xids;         ///< XID codes reported since the previous reading (NVML events)
  std::vector<std::string> not_read;  ///< what could not be read, and why
};

/// Every watched device's counters at one moment.
struct error_counter_reading {
  std::vector<device_error_counters> devices;
};

/// A counter that changed between two readings.
struct counter_change {
  std::string device;
  std::string counter;
  error_class cls = error_class::uncorrected;
  std::uint64_t before = 0;
  std::uint64_t after = 0;
  [[nodiscard]] bool rose() const { return after > before; }
};

/// What changed between two readings of the same devices.
struct error_delta {
  std::vector<counter_change> rises;                  ///< counters that rose
  std::vector<counter_change> resets;                 ///< counters that fell (a driver reload clears volatile counts)
  std::map<std::string, std::vector<unsigned>> xids;  ///< device -> XID codes seen after `before`
  [[nodiscard]] bool empty() const { return rises.empty() && xids.empty(); }
};

/// The changes from `before` to `after` (devices and counters matched by name; a counter in
/// only one reading is not compared). XIDs are those `after` collected.
[[nodiscard]] error_delta delta_between(const error_counter_reading& before, const error_counter_reading& after);

/// Whether XID `code` reports a hardware fault (double-bit ECC, row remapping, NVLink, a GPU
/// that fell off the bus, GSP errors, contained or uncontained ECC errors), rather than a fault
/// of the application (an illegal address, a timeout of a kernel: XID 13, 31, 43, ...).
[[nodiscard]] bool hardware_xid(unsigned code);

/// {"devices": [{"device", "source", "counters": {...}, "xids": [...], "not_read": [...]}]}
[[nodiscard]] json to_json(const error_counter_reading& reading);
/// {"rises": [{"device", "counter", "class", "before", "after"}], "resets": [...], "xids": {"cuda:0": [79]}}
[[nodiscard]] json to_json(const error_delta& delta);
/// The delta back from its JSON (what a run stores); missing keys read as nothing changed.
[[nodiscard]] error_delta delta_from_json(const json& j);

/// "ras_umc_ce"/"ras_umc_ue" counts from the text of amdgpu's ras/<block>_err_count file
/// ("ue: 0\nce: 3\n") into `counters`; false when the text has neither.
bool parse_amdgpu_ras_count(const std::string& block, const std::string& text,
                            std::map<std::string, std::uint64_t>& counters);

}  // namespace ironbench::telemetry
