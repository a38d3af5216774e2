// `ironbench validate`: measures this machine's suite for a level, judges every case against
// its expected value (data/expected_values.json, or reference runs with --expect) and every
// doctor check, and gives each a verdict, with a summary verdict and exit code.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "core/runner.hpp"
#include "doctor/finding.hpp"
#include "validate/burn_in_verdict.hpp"
#include "validate/rank_share.hpp"
#include "validate/run_expectations.hpp"
#include "validate/validation_suite.hpp"
#include "validate/verdict.hpp"

namespace ironbench::validate {

struct validation_settings {
  level lvl = level::quick;
  std::string devices = "all";        ///< --device (as `run` takes it)
  std::optional<std::string> expect;  ///< --expect ref:NAME | tag:K=V
  double expect_factor = 1.0;
  std::string database;              ///< --db for tag: references
  std::optional<double> warn_below;  ///< overrides of the table's rules
  std::optional<double> fail_below;
  /// --level burn-in: --duration, --interval and the bounds (burn_in.hpp)
  double burn_in_duration_s = 600;
  double burn_in_interval_s = 10;
  burn_in_bounds burn_in;
  /// The ranks of a job on this host (mpirun, srun): what this rank validates (rank_share.hpp).
  host_share share;
};

struct validation_report {
  level lvl = level::quick;
  verdict_rules rules;
  std::vector<check_row> rows;
  verdict overall = verdict::pass;
  std::string expectations;  ///< "data/expected_values.json" or the --expect reference
  core::run_result run;      ///< what was measured (findings included), with the report in settings.validation
  json burn_in = nullptr;    ///< --level burn-in: its settings, intervals and judgements (burn_in.hpp)
  /// A case did not end within its time limit and its thread still runs (a hung GPU call): the
  /// process should end once the outputs are written, without waiting for it.
  bool left_running = false;
};

/// The rows of a finished run: one per measured case (judged against `expectations`, else the
/// table; a GPU GEMM case's row carries its clock and power as evidence) and one per doctor
/// check. A finding decides its row's verdict (critical FAIL, warning WARN, info PASS) only
/// where it affects a case the run measured (doctor::affects_case, by benchmark and device; a
/// finding on "all" of the host affects every case); otherwise its row PASSes and says that it
/// affects no check of this run. Each finding's row names the checks it affected.
[[nodiscard]] std::vector<check_row> judge_run(const core::run_result& run, const verdict_rules& rules,
                                               const run_expectations* expectations, const std::string& cpu_isa);

/// Runs the level's suite on this machine (usage_error for bad settings before anything runs),
/// reporting each case to `progress`; stops after the current case once `cancel` is set.
[[nodiscard]] validation_report validate_this_machine(const validation_settings& settings,
                                                      const std::vector<std::string>& argv,
                                                      const std::atomic<bool>* cancel,
                                                      const core::progress_callback& progress);

/// The table's verdict rules with --warn-below and --fail-below of `settings`; usage_error
/// unless 0 < fail-below < warn-below <= 1.
[[nodiscard]] verdict_rules rules_of(const validation_settings& settings);

/// {"level", "verdict", "exit_code", "rules", "expectations", "checks": [...], "burn_in"?}
[[nodiscard]] json to_json(const validation_report& report);

}  // namespace ironbench::validate
