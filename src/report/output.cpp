#include "report/output.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/output_file.hpp"
#include "core/result_json.hpp"
#include "core/units.hpp"
#include "doctor/checks.hpp"
#include "doctor/findings_output.hpp"
#include "report/add_unique.hpp"
#include "report/case_tables.hpp"
#include "report/run_header.hpp"

namespace ironbench::report {
namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string number(double value) { return fmt::format("{:.9g}", value); }

}  // namespace

void write_console(const core::run_result& run, std::ostream& out) {
  for (const auto& [key, value] : header_lines(run)) out << fmt::format("{:<12} {}\n", key + ":", value);
  for (const auto& t : case_tables(run)) {
    out << '\n' << t.title << '\n';
    t.table.render_text(out);
  }
  if (const auto unstable = unstable_lines(run); !unstable.empty()) {
    out << "\nunstable cases (their samples scatter too widely for the median to stand for them):\n";
    for (const auto& line : unstable) out << "  " << line << '\n';
  }
  out << '\n' << fmt::format("run {}: {}", core::to_string(run.status), status_counts(run));
  if (!run.status_reason.empty()) out << " (" << run.status_reason << ')';
  out << '\n';
}

void write_findings_console(const core::run_result& run, std::ostream& out) {
  if (!run.findings.is_array() || run.findings.empty()) return;
  std::vector<doctor::finding> findings;
  for (const auto& f : run.findings) findings.push_back(doctor::finding_from_json(f));
  out << '\n';
  doctor::write_findings(findings, doctor::doctor_checks().size(), out);
}

void write_json(const core::run_result& run, std::ostream& out) {
  out << core::json_text(core::to_json(run), 2) << '\n';
}

void write_csv(const core::run_result& run, std::ostream& out) {
  std::vector<std::string> params;
  std::vector<std::pair<std::string, std::string>> metrics;
  for (const auto& c : run.cases) {
    for (const auto& [name, value] : c.params.entries()) add_unique(params, name);
    for (const auto& m : c.metrics) add_unique(metrics, {m.name, m.unit});
  }
  std::vector<std::string> header{"benchmark", "device", "status", "reason"};
  header.insert(header.end(), params.begin(), params.end());
  for (const char* stat : {"median", "p10", "p90", "min", "max", "mean", "stddev"}) {
    header.push_back(fmt::format("time_{}_s", stat));
  }
  header.insert(header.end(), {"time_cv", "samples", "stop_reason"});
  for (const auto& [name, unit] : metrics) {
    header.push_back(unit.empty() ? name : fmt::format("{} ({})", name, unit));
  }
  std::string line;
  for (const auto& h : header) line += (line.empty() ? "" : ",") + csv_field(h);
  out << line << '\n';
  for (const auto& c : run.cases) {
    // A valid case has no reason, unless it is unstable: then the reason says so.
    const auto reason =
        c.status == core::case_status::valid && c.unstable ? "unstable: " + c.unstable->describe() : c.reason;
    std::vector<std::string> cells{c.benchmark, c.device, core::to_string(c.status), reason};
    for (const auto& p : params) cells.push_back(c.params.contains(p) ? core::to_string(c.params.at(p)) : "");
    if (c.timing) {
      const auto& s = c.timing->time_s;
      for (double v : {s.median, s.p10, s.p90, s.min, s.max, s.mean, s.stddev, s.cv}) cells.push_back(number(v));
      cells.push_back(std::to_string(s.count));
      cells.push_back(core::to_string(c.timing->stop));
    } else {
      cells.insert(cells.end(), 10, "");
    }
    for (const auto& [name, unit] : metrics) {
      const auto* m = c.find_metric(name);
      cells.push_back(m ? number(m->value) : "");
    }
    line.clear();
    for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + csv_field(cells[i]);
    out << line << '\n';
  }
}

void write_markdown(const core::run_result& run, std::ostream& out) {
  out << "# ironbench run\n\n";
  text_table environment;
  environment.add_column("", text_table::align::left);
  environment.add_column("", text_table::align::left);
  for (const auto& [key, value] : header_lines(run)) environment.add_row({key, value});
  environment.render_markdown(out);
  for (const auto& t : case_tables(run)) {
    out << "\n## " << t.title << "\n\n";
    t.table.render_markdown(out);
  }
  if (const auto unstable = unstable_lines(run); !unstable.empty()) {
    out << "\nUnstable cases (their samples scatter too widely for the median to stand for them):\n\n";
    for (const auto& line : unstable) out << "- " << line << '\n';
  }
  out << fmt::format("\nRun {}: {}.", core::to_string(run.status), status_counts(run));
  if (!run.status_reason.empty()) out << ' ' << run.status_reason << '.';
  out << '\n';
}

void write_report(const core::run_result& run, output_format format, std::ostream& out) {
  switch (format) {
    case output_format::console: write_console(run, out); return;
    case output_format::json: write_json(run, out); return;
    case output_format::csv: write_csv(run, out); return;
    case output_format::markdown: write_markdown(run, out); return;
  }
}

void check_output_target(const output_target& target) {
  if (target.path != "-") (void)core::plan_output_file(target.path);
}

void write_output(const core::run_result& run, const output_target& target, std::ostream& standard_output) {
  if (target.path == "-") {
    write_report(run, target.format, standard_output);
    standard_output.flush();
    return;
  }
  core::write_output_file(core::plan_output_file(target.path),
                          [&](std::ostream& file) { write_report(run, target.format, file); });
}

}  // namespace ironbench::report
