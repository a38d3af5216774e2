// The two readers behind parse_nccl_tests (nccl_tests_import.hpp): the table nccl-tests and
// rccl-tests print, and the JSON file newer nccl-tests write with -J/--output_file. Internal
// to the results library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "results/nccl_tests_import.hpp"

namespace ironbench::results {

/// The most ranks, and the highest device index, an nccl-tests report is believed to describe.
inline constexpr std::int64_t max_nccl_tests_ranks = std::int64_t{1} << 24;

/// The tables of a printed output, in order (none when it holds no table).
std::vector<nccl_tests_report> parse_nccl_tests_text(const std::string& text, const std::string& source);

/// The report of one JSON document; what is not valid JSON, or not shaped as nccl-tests writes
/// it, is a usage_error naming `source`.
nccl_tests_report parse_nccl_tests_json(const std::string& text, const std::string& source);

}  // namespace ironbench::results
