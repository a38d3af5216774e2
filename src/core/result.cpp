#include "core/result.hpp"

#include <fmt/format.h>

namespace ironbench::core {

const char* to_string(case_status status) {
  switch (status) {
    case case_status::valid: return "valid";
    case case_status::invalid: return "invalid";
    case case_status::skipped: return "skipped";
    case case_status::failed: return "failed";
  }
  return "unknown";
}

std::optional<case_status> case_status_from_string(const std::string& text) {
  for (auto s : {case_status::valid, case_status::invalid, case_status::skipped, case_status::failed}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

const char* to_string(run_status status) {
  switch (status) {
    case run_status::valid: return "valid";
    case run_status::invalid: return "invalid";
    case run_status::interrupted: return "interrupted";
  }
  return "unknown";
}

const metric* case_result::find_metric(const std::string& name) const {
  for (const auto& m : metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

void settle_run_status(run_result& run) {
  std::size_t bad = 0;
  for (const auto& c : run.cases) {
    if (c.status == case_status::invalid || c.status == case_status::failed) ++bad;
  }
  if (run.status == run_status::interrupted) return;
  if (bad == 0) {
    run.status = run_status::valid;
    run.status_reason.clear();
  } else {
    run.status = run_status::invalid;
    run.status_reason = fmt::format("{} of {} cases invalid or failed", bad, run.cases.size());
  }
}

void mark_interrupted(run_result& run, const std::string& kept) {
  run.status = run_status::interrupted;
  run.status_reason = fmt::format("interrupted (SIGINT or SIGTERM); {} are kept", kept);
}

}  // namespace ironbench::core
