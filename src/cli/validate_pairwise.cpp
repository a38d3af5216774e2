#include "cli/validate_pairwise.hpp"

#include <fmt/format.h>

#include "cli/interrupt.hpp"
#include "cli/pairwise_command.hpp"
#include "core/error.hpp"

namespace ironbench::cli {
namespace {

validate::check_row skipped(const std::string& why) {
  validate::check_row row;
  row.check = "pairwise bandwidth between nodes";
  row.result = validate::verdict::skip;
  row.rule = why;
  return row;
}

}  // namespace

validate::check_row pairwise_check_row(const comm::pairwise_result& r) {
  const auto& f = r.findings;
  validate::check_row row;
  row.check = fmt::format("pairwise bandwidth between {} nodes", r.participants.size());
  row.unit = "GB/s";
  if (f.links > 0) row.measured = f.median;
  const auto summary = describe(f, comm::participant_labels(r));
  if (r.wrong_bytes > 0) {
    row.result = validate::verdict::fail;
    row.rule = fmt::format("{} bytes received differ from what was sent: FAIL", r.wrong_bytes);
  } else if (!f.judged) {
    row.result = validate::verdict::skip;
    row.rule = summary;
  } else if (!f.nodes.empty()) {
    row.result = validate::verdict::fail;
    row.rule = fmt::format("the node at fault: {}: FAIL", summary);
  } else if (!f.bad_links.empty()) {
    row.result = validate::verdict::warn;
    row.rule = fmt::format("a slow link: {}: WARN", summary);
  } else {
    row.result = validate::verdict::pass;
    row.rule = summary;
  }
  return row;
}

void add_pairwise_check(validate::validation_report& report, bool several, int rank) {
  if (report.lvl == validate::level::quick) return;
  validate::check_row row;
  if (!several) {
    row = skipped("one process: the pairwise sweep needs ranks on 2 nodes or more (run under mpirun or srun)");
  } else {
    try {
      comm::pairwise_settings s;
      s.mode = comm::pair_mode::nodes;
      const auto result = run_pairwise_on_job(s, 300, &install_interrupt_flag());
      row = pairwise_check_row(result);
    } catch (const usage_error& e) {
      row = skipped(e.what());  // every rank alike (one node: no pair of nodes)
    }
  }
  if (rank != 0) return;
  report.rows.push_back(std::move(row));
  report.overall = validate::summary_verdict(report.rows);
  report.run.settings["validation"] = validate::to_json(report);
}

}  // namespace ironbench::cli
