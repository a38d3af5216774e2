// The one function that turns a placement of a collectives row into a result case, whether
// ironbench measured it (comm/collectives_results) or nccl-tests did and it was imported
// (results/nccl_tests_import): the same numbers give the same case.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace ironbench::schema {

/// What one placement of one row says, in ironbench's names.
struct collective_case_fields {
  std::string collective;  ///< "all_reduce", ...
  std::string dtype;       ///< "fp32", ...
  std::string op;          ///< the operator; "none" for collectives that do not reduce
  std::int64_t root = -1;  ///< -1 without one
  std::uint64_t size = 0;  ///< bytes
  bool in_place = false;
  int ranks = 0;            ///< 0: unknown
  std::string skipped;      ///< non-empty: the placement did not run, and why (no metrics follow)
  std::uint64_t count = 0;  ///< the count passed to the library (nccl-tests' count column)
  std::optional<core::measurement> timing;
  double time_us = 0;
  std::string time_description = "time per iteration (nccl-tests)";
  double algbw_gbs = 0;
  double busbw_gbs = 0;
  std::vector<core::metric> busbw_spread;  ///< metrics between busbw and wrong (the spread over trials)
  double wrong = -1;                       ///< wrong elements over every rank; -1: not checked
};

/// The case: benchmark "collectives", device "N ranks" ("unknown ranks" for 0), parameters
/// collective, dtype, op, root, size (B), placement, ranks; a skipped placement has status
/// skipped and its reason, else metrics time_us, algbw, busbw, the spread, wrong, the note
/// "count", and status invalid with "#wrong = N" when wrong > 0. Callers add their notes.
[[nodiscard]] core::case_result collective_case(const collective_case_fields& fields);

}  // namespace ironbench::schema
