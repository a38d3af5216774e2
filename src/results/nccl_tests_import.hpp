// Results of nccl-tests and rccl-tests (all_reduce_perf, all_gather_perf, ...), read from the
// table they print or from the JSON file newer nccl-tests write with -J/--output_file, as
// cases shaped like ironbench's own `collectives` cases, so that `ironbench compare` lines an
// nccl-tests run up with an ironbench run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "results/import_consistency.hpp"

namespace ironbench::results {

/// One placement (out-of-place or in-place) of one table row.
struct nccl_tests_placement {
  bool present = false;                    ///< false when the table has no such column group or prints nothing there
  double time_us = 0;                      ///< time per iteration, microseconds (CPU time with nccl-tests -C)
  double algbw_gbs = 0;                    ///< algorithm bandwidth, GB/s (10^9 B/s)
  double busbw_gbs = 0;                    ///< bus bandwidth, GB/s
  std::optional<double> wrong;             ///< the #wrong (or, before nccl-tests 2.13, "error") column; nullopt for N/A
  std::vector<double> iteration_times_us;  ///< every timed iteration (JSON with nccl-tests -I 1), else empty
  /// Every process's time of every iteration, microseconds ([process][iteration]; each the
  /// longest of the process's threads and GPUs): per_process_max_times_us of nccl-tests 2.19+
  /// JSON with -I 1 and two processes or more; empty otherwise.
  std::vector<std::vector<double>> process_times_us;
  std::size_t skipped_iterations = 0;  ///< leading iterations nccl-tests' summary leaves out (-K)
};

/// One row of the table: one size of one collective call.
struct nccl_tests_row {
  std::uint64_t bytes = 0;           ///< the size column (B): nccl-tests' -b/-e size as it was rounded
  std::uint64_t count = 0;           ///< the count column (elements)
  std::string type;                  ///< nccl-tests' type name: float, half, bfloat16, int32, ...
  std::string redop;                 ///< sum, prod, max, min, avg, mulsum, or "none"; empty when the table has no redop
  std::optional<std::int64_t> root;  ///< the root column; nullopt when the table has none
  nccl_tests_placement out_of_place;
  nccl_tests_placement in_place;
  std::size_t line = 0;  ///< line number in the text (1-based), or index in the JSON results + 1
};

/// One rank's device, from a "#  Rank  0 Group  0 Pid ... device  0 [0000:04:00] NAME" line.
struct nccl_tests_device {
  int rank = 0;
  std::string hostname;
  int device = 0;    ///< the CUDA/HIP device index on that host
  std::string bus;   ///< PCI location as printed: "0000:04:00", "0x00"
  std::string name;  ///< "NVIDIA H100 80GB HBM3"
};

/// One table of an nccl-tests output (a file holds several when tests ran one after another).
struct nccl_tests_report {
  std::string format;        ///< "text" or "json"
  std::string program;       ///< the binary the output names ("all_reduce_perf"); empty when it names none
  std::string version_line;  ///< "nccl-tests version 2.17.6 ..." or "rccl-tests: Version ..."; empty if absent
  std::map<std::string, std::string> settings;  ///< from "# nThread 1 nGpus 8 ...": nThread, nGpus, minBytes, ...
  std::vector<nccl_tests_device> devices;
  std::vector<std::string> prefix_columns;  ///< columns before the timings: size, count, type[, redop][, root]
  bool wrong_is_max_error =
      false;              ///< the column is "error" (nccl-tests before 2.13): the largest deviation, not a count
  bool cpu_time = false;  ///< times are CPU time (nccl-tests -C, "cputime" column)
  std::vector<nccl_tests_row> rows;
  std::optional<double> average_busbw_gbs;    ///< "# Avg bus bandwidth : X"
  std::optional<std::int64_t> out_of_bounds;  ///< "# Out of bounds values : N OK"
  /// JSON: the distinct processes (pids) of config.devices, which lists one entry per
  /// process, not per GPU; ranks = processes x ngpus x nthreads. 0 for text output.
  int processes = 0;
};

/// Parses nccl-tests or rccl-tests output: the printed text (header lines starting with '#',
/// the column header, rows, footer) or the JSON of -J. Lines that belong to neither (NCCL INFO
/// messages, shell prompts, MPI prefixes) are ignored. Returns one report per table. Throws
/// usage_error naming `source` when there is no table, a row is truncated or holds something
/// that is not a number, or a JSON document is not an nccl-tests report.
[[nodiscard]] std::vector<nccl_tests_report> parse_nccl_tests(const std::string& text, const std::string& source);

/// What the import command adds to a file's own content.
struct nccl_tests_options {
  std::string collective;  ///< --collective: used when the output does not name its program
  int ranks = 0;           ///< --ranks: used when the output has no "# Rank" lines (0: not given)
};

/// The ironbench name of the collective a report measured ("all_reduce", ...): from the
/// program the output names, else `options.collective`, else the file name of `source`
/// (all_reduce_perf.txt, node1-alltoall_perf.log), else the root/redop columns when they
/// decide it (a root and an operator: reduce). Throws usage_error when none works, or when
/// the root/redop columns contradict the collective.
[[nodiscard]] std::string nccl_tests_collective(const nccl_tests_report& report, const std::string& source,
                                                const nccl_tests_options& options);

/// ironbench's name of an nccl-tests type ("float" -> "fp32", "half" -> "fp16", "bfloat16"
/// -> "bf16", "int" -> "int32", "char" -> "int8", "double" -> "fp64"); others are kept.
[[nodiscard]] std::string ironbench_dtype(const std::string& nccl_tests_type);

/// How far a row's algbw may be from its size / time before its case is invalid: 2 % and
/// 0.01 GB/s, above what the table's printing rounds (bandwidths to 2 decimals, times to 1 or
/// 2), far below a damaged or made-up number.
inline constexpr agreement nccl_tests_bandwidth_agreement{0.02, 0.01};

/// The bus bandwidth factors (busbw = algbw x factor) nccl-tests and rccl-tests use for
/// `collective` over `ranks` ranks (nccl-tests' doc/PERFORMANCE.md and its *GetBw): all_reduce
/// 2(n-1)/n; all_gather, reduce_scatter and alltoall (n-1)/n; broadcast, reduce and sendrecv
/// 1; gather, scatter, alltoallv and hypercube (n-1)/n or 1 (versions and forks differ). With
/// `ranks` 0 (unknown): none. Empty for a collective it does not know.
[[nodiscard]] std::vector<double> nccl_tests_bus_factors(const std::string& collective, int ranks);

/// The largest bus factor `collective` reaches at any rank count (2 for all_reduce, else 1):
/// what a row's busbw is held to when the output does not say how many ranks it had.
[[nodiscard]] double nccl_tests_max_bus_factor(const std::string& collective);

/// How far a row's busbw may be from its algbw x the bus factor: 2 % and 0.02 GB/s (both
/// printed to 2 decimals, so the product of a rounded algbw may be off by 0.015).
inline constexpr agreement nccl_tests_busbw_agreement{0.02, 0.02};

/// One case per row and placement, as ironbench's collectives cases: benchmark
/// "collectives", device "N ranks", parameters collective, dtype, op ("none" for collectives
/// that do not reduce), root (-1 without one), size (B), placement, ranks; metrics time_us
/// (us), algbw and busbw (GB/s), wrong (elements; -1 when not checked). A case with wrong
/// elements is invalid, and so is one whose algbw contradicts its size / time
/// (nccl_tests_bandwidth_agreement) or whose busbw contradicts its algbw x the bus factor of its
/// collective and rank count (nccl_tests_bus_factors, nccl_tests_busbw_agreement; with the
/// ranks unknown, above algbw x nccl_tests_max_bus_factor), with the contradiction as its reason. Notes: source,
/// device names, nccl-tests' count and type, the average bus bandwidth of the table.
[[nodiscard]] std::vector<core::case_result> nccl_tests_cases(const nccl_tests_report& report,
                                                              const std::string& source,
                                                              const nccl_tests_options& options);

/// How the import times a straggler report's steps (settings.stragglers.method).
inline constexpr const char* nccl_tests_straggler_method =
    "nccl-tests' per-process iteration times (JSON with -I 1: per_process_max_times_us, each process's longest "
    "thread/GPU, event time per iteration); every iteration of every size and placement after the skipped ones is "
    "a step, and rank = the process's index (its MPI rank; config.devices names its host); the process with the "
    "least time arrived last, and lateness = median process's time - its time";

/// Why an import has no straggler report (notes.stragglers of its cases).
inline constexpr const char* nccl_tests_no_process_times =
    "no per-process times in this output, so no straggler report: nccl-tests 2.19+ writes them "
    "(per_process_max_times_us) only to -J JSON with -I 1 from two MPI processes or more";

/// The straggler report (schema/straggler_analysis.hpp, as settings.stragglers) of every row's
/// per-process iteration times; nullopt when the report has none (text output, JSON without
/// -I 1, older nccl-tests, a single process).
[[nodiscard]] std::optional<json> nccl_tests_stragglers(const nccl_tests_report& report);

}  // namespace ironbench::results
