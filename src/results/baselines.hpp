// Published reference baselines: results from public reports (vendor papers, blog posts),
// stored as data/baselines/NAME.json and compiled into the library, so that a run can be put
// next to them (`ironbench compare RUN ref:NAME`). The layout is described in docs/baselines.md.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"

namespace ironbench::results {

/// Version of the baseline file layout this build reads.
inline constexpr int baseline_schema_version = 1;

/// One embedded baseline, as listed to users.
struct baseline_info {
  std::string name;         ///< used as ref:NAME; equals the file name without ".json"
  std::string title;        ///< the system and what the baseline holds
  std::string source_text;  ///< the publication: "title" (publisher, date) url
  std::size_t cases = 0;
};

/// A baseline file compiled into the library: its file name ("NAME.json") and contents.
struct embedded_baseline_file {
  std::string_view file_name;
  std::string_view text;
};

/// Every file of data/baselines as it was when the library was built, sorted by file name.
[[nodiscard]] std::span<const embedded_baseline_file> embedded_baseline_files();

/// Every embedded baseline, sorted by name. Throws usage_error when an embedded file is
/// malformed (the test suite parses each one).
[[nodiscard]] std::vector<baseline_info> list_baselines();

/// The embedded baseline `name` (a leading "ref:" is accepted) as a run: tool
/// {"name": "published reference", ...}; host the baseline's hardware plus "source";
/// settings {"baseline", "title", "source"}; start and end time the publication date
/// (midnight UTC; the first of the month when only a month is given); no devices; one valid
/// case per published result with its metrics (no timing), notes "source" (the publication
/// and where in it the number is) and "note" when the baseline has one. Throws usage_error
/// naming every known baseline when there is none called `name`.
[[nodiscard]] core::run_result baseline_run(const std::string& name);

/// Parses and validates a baseline document: schema_version 1; name (lower-case letters,
/// digits, '.', '_', '-'); title; source with title (and optional publisher, author, date
/// YYYY-MM or YYYY-MM-DD, url, code_url, sponsor, note); optional hardware object; a non-empty
/// cases array whose entries have benchmark, params (integers, numbers or strings), a
/// non-empty metrics array of {name, numeric value, unit[, description]}, where, and optional
/// device and note; no two cases with the same benchmark, device and params. Returns the
/// baseline as baseline_run does. Throws usage_error with one line naming `origin` and the
/// offending field.
[[nodiscard]] core::run_result parse_baseline(const std::string& json_text, const std::string& origin);

}  // namespace ironbench::results
