// The result model: one run of ironbench and the cases it measured. This is what every
// output format, the results store and comparisons read. Serialised by result_json.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/case_stability.hpp"
#include "core/device_info.hpp"
#include "core/json.hpp"
#include "core/measurement.hpp"
#include "core/parameter_set.hpp"

namespace ironbench::core {

/// Version of the JSON layout written by this build. Readers ignore fields they do not know.
inline constexpr int result_schema_version = 1;

/// A named number with its unit ("tflops" in "TFLOP/s", "bandwidth" in "GB/s").
struct metric {
  std::string name;
  double value = 0;
  std::string unit;
  std::string description;
};

/// valid: measured and verified. invalid: measured, but verification failed (the numbers are
/// kept and must not be trusted). skipped: could not run here (reason says why). failed: an
/// error stopped the case.
enum class case_status { valid, invalid, skipped, failed };

[[nodiscard]] const char* to_string(case_status status);
[[nodiscard]] std::optional<case_status> case_status_from_string(const std::string& text);

/// Work done by one repetition, declared by the benchmark; rates derive from it.
struct work_declaration {
  double flops = 0;
  double bytes_read = 0;
  double bytes_written = 0;
  [[nodiscard]] double bytes() const { return bytes_read + bytes_written; }
};

/// When a case ran within its run, and beside which other devices' cases (execute_plan).
struct case_schedule {
  double start_s = 0;  ///< seconds after the run's first case started
  double wall_s = 0;   ///< its wall time: setup, measurement and verification
  /// Its stage in a concurrent run (run_schedule.hpp: "gpus", "host_links", "peers",
  /// "host"), or "sequential".
  std::string stage;
  /// The other devices whose cases ran at some time during it, sorted; empty when it ran alone.
  std::vector<std::string> concurrent_with;
};

struct case_result {
  std::string benchmark;
  std::string device;  ///< device id, see device_info::id
  parameter_set params;
  std::map<std::string, std::string> param_units;  ///< unit of a parameter, e.g. size: "B"
  case_status status = case_status::valid;
  std::string reason;  ///< why the case is invalid, skipped or failed
  work_declaration work;
  std::optional<measurement> timing;         ///< absent when nothing was measured
  std::vector<metric> metrics;               ///< derived and benchmark-specific numbers
  std::map<std::string, std::string> notes;  ///< context: library, threads, peak source
  json telemetry = nullptr;                  ///< device telemetry summary (mean/max per sensor), or why there is none
  /// What else used the host's CPUs while the case ran; absent where it was not watched.
  std::optional<host_load> load;
  /// Set when a valid case's samples scatter beyond measurement_settings::unstable_cv: its
  /// numbers are verified but its median cannot be trusted to stand for it.
  std::optional<instability> unstable;
  /// Per-step series the case recorded, by name (training: "loss", "step_time_ms"), in order.
  std::map<std::string, std::vector<double>> series;
  /// When it ran and beside what; absent in runs from before concurrent runs, and in cases
  /// not run by execute_plan.
  std::optional<case_schedule> schedule;

  /// The metric called `name`, if present.
  [[nodiscard]] const metric* find_metric(const std::string& name) const;
};

/// valid: every case valid or skipped. invalid: some case invalid or failed.
/// interrupted: the run was stopped before it finished (what was measured is kept).
enum class run_status { valid, invalid, interrupted };

[[nodiscard]] const char* to_string(run_status status);

struct run_result {
  int schema_version = result_schema_version;
  /// The run's identity in every store it is gathered into (results/run_uuid.hpp): set when the
  /// run is first written; empty in runs written before uuids existed.
  std::string uuid;
  json tool = json::object();  ///< name, version, git, build type, compiler, features
  std::vector<std::string> argv;
  /// User labels (--tag env=vm): what the run stands for in comparisons (env, gpu, site ...).
  std::map<std::string, std::string> tags;
  std::string start_time;  ///< ISO 8601, UTC
  std::string end_time;
  run_status status = run_status::valid;
  std::string status_reason;
  json host = json::object();  ///< host fingerprint
  std::vector<device_info> devices;
  json settings = json::object();  ///< measurement settings used
  std::vector<case_result> cases;
  /// Telemetry time series: [{"case": index in cases, "device": id, "samples": [...]}, ...].
  json telemetry = json::array();
  /// What `ironbench doctor`'s checks found on this machine during the run (doctor/finding.hpp):
  /// [{"check", "severity", "summary", "evidence", "affects", "device"?, "fix"}, ...].
  json findings = json::array();
};

/// Derives the run status from its cases (keeps `interrupted` when already set).
void settle_run_status(run_result& run);

/// Marks `run` interrupted by SIGINT or SIGTERM; `kept` says what was kept ("the steps measured
/// so far"), and becomes the status reason "interrupted (SIGINT or SIGTERM); KEPT are kept".
void mark_interrupted(run_result& run, const std::string& kept);

}  // namespace ironbench::core
