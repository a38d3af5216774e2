// The option groups several commands share, declared once so that every command spells and
// documents them alike.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "report/run_outputs.hpp"
#include "results/results_store.hpp"

namespace ironbench::cli {

/// Adds --json, --csv, --md, --results-dir, --db, --tag and --no-save to `command`.
void add_output_options(CLI::App& command, report::output_options& options);

/// Adds --db LOCATION: the results store, a SQLite file or a postgresql:// URL (the help says
/// both, and the default: $IRONBENCH_DB or ~/.local/share/ironbench/results.db). Every command
/// that reads or writes the store takes it from here.
void add_database_option(CLI::App& command, std::string& database);

/// The options that choose stored runs by their labels, host and time, as typed.
struct run_filter_arguments {
  std::vector<std::string> tags;  ///< --tag KEY=VALUE (repeatable: all must match)
  std::string host, since, until;
};

/// Adds --tag, --host, --since and --until (results list, trend, report --trend).
void add_run_filter_options(CLI::App& command, run_filter_arguments& filter);

/// `filter` as the store's run_filter (its benchmark and limit left unset); usage_error for a
/// malformed --tag.
[[nodiscard]] results::run_filter run_filter_of(const run_filter_arguments& filter);

/// Adds -q,--quiet; `what` says what it silences ("No progress lines").
void add_quiet_flag(CLI::App& command, bool& quiet, const std::string& what = "No progress lines");

/// Adds --timeout DURATION (e.g. 300s, 2m) with `help`; parse it with parse_duration_s.
void add_timeout_option(CLI::App& command, std::string& timeout,
                        const std::string& help = "End the run when a step makes no progress for this long");

/// Adds --inject-fault hang@RANK|exit@RANK: that rank stops or dies before its first step
/// (tp-infer, train; parse it with comm::parse_fault).
void add_rank_fault_option(CLI::App& command, std::string& fault);

/// Adds nccl-tests' -n,--iters and -w,--warmup_iters, each with its help text.
void add_iteration_options(CLI::App& command, int& iterations, int& warmup_iterations,
                           const std::string& iterations_help, const std::string& warmup_help);

/// --min-difference as typed: a fraction in [0, 1) ("0.02") or a percentage ("2%");
/// usage_error otherwise.
[[nodiscard]] double parse_min_difference(const std::string& text);

}  // namespace ironbench::cli
