#include "validate/pairwise_check.hpp"

#include <fmt/format.h>

#include "comm/pairwise_job.hpp"
#include "core/error.hpp"

namespace ironbench::validate {
namespace {

check_row pairwise_skipped(const std::string& why) {
  check_row row;
  row.check = "pairwise bandwidth between nodes";
  row.result = verdict::skip;
  row.rule = why;
  return row;
}

}  // namespace

check_row pairwise_check_row(const comm::pairwise_result& r) {
  const auto& f = r.findings;
  check_row row;
  row.check = fmt::format("pairwise bandwidth between {} nodes", r.participants.size());
  row.unit = "GB/s";
  if (f.links > 0) row.measured = f.median;
  const auto summary = comm::describe(f, comm::participant_labels(r));
  if (r.wrong_bytes > 0) {
    row.result = verdict::fail;
    row.rule = fmt::format("{} bytes received differ from what was sent: FAIL", r.wrong_bytes);
  } else if (!f.judged) {
    row.result = verdict::skip;
    row.rule = summary;
  } else if (!f.nodes.empty()) {
    row.result = verdict::fail;
    row.rule = fmt::format("the node at fault: {}: FAIL", summary);
  } else if (!f.bad_links.empty()) {
    row.result = verdict::warn;
    row.rule = fmt::format("a slow link: {}: WARN", summary);
  } else {
    row.result = verdict::pass;
    row.rule = summary;
  }
  return row;
}

void add_pairwise_check(validation_report& report, bool several, int rank, const std::atomic<bool>* cancel) {
  if (report.lvl == level::quick) return;
  check_row row;
  if (!several) {
    row = pairwise_skipped("one process: the pairwise sweep needs ranks on 2 nodes or more (run under mpirun or srun)");
  } else {
    try {
      comm::pairwise_settings s;
      s.mode = comm::pair_mode::nodes;
      const auto result = comm::run_pairwise_on_job(s, 300, cancel);
      row = pairwise_check_row(result);
    } catch (const usage_error& e) {
      row = pairwise_skipped(e.what());  // every rank alike (one node: no pair of nodes)
    }
  }
  if (rank != 0) return;
  report.rows.push_back(std::move(row));
  report.overall = summary_verdict(report.rows);
  report.run.settings["validation"] = to_json(report);
}

}  // namespace ironbench::validate
