#include "report/comparison_table.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/text_table.hpp"

namespace ironbench::report {
namespace {

std::string verdict_text(const results::compared_case& row, std::size_t s) {
  std::string text = results::to_string(row.verdicts[s]);
  if (row.verdicts[s] != results::verdict::not_comparable && !row.p_value[s]) text += " (untested)";
  return text;
}

std::string p_text(const std::optional<double>& p) {
  if (!p) return "-";
  return *p < 1e-4 ? "<1e-4" : fmt::format("{:.4f}", *p);
}

std::vector<text_table> tables_of(const results::comparison& c) {
  std::vector<text_table> tables;
  const std::size_t n = c.labels.size();
  std::string current;
  for (const auto& row : c.cases) {
    if (row.benchmark != current) {
      current = row.benchmark;
      tables.emplace_back();
      auto& t = tables.back();
      t.add_column(row.benchmark, text_table::align::left);
      t.add_column("metric", text_table::align::left);
      for (const auto& label : c.labels) t.add_column(label);
      for (std::size_t s = 1; s < n; ++s) {
        const std::string suffix = n > 2 ? " " + c.labels[s] : "";
        t.add_column("speedup" + suffix);
        t.add_column("diff");
        t.add_column("p");
        t.add_column(fmt::format("{:g}% CI", c.options.confidence * 100));
        t.add_column("verdict", text_table::align::left);
      }
    }
    std::vector<std::string> cells = {row.key.empty() ? "-" : row.key,
                                      fmt::format("{} {}", row.metric, row.unit.empty() ? "" : "(" + row.unit + ")")};
    for (std::size_t s = 0; s < n; ++s) {
      if (!row.values[s]) {
        cells.emplace_back("-");
        continue;
      }
      const auto& v = *row.values[s];
      cells.push_back(format_value(v.value) + (v.cases > 1 ? fmt::format(" (best of {})", v.cases) : ""));
    }
    for (std::size_t s = 1; s < n; ++s) {
      const bool comparable = row.verdicts[s] != results::verdict::not_comparable;
      cells.push_back(comparable ? fmt::format("{:.3f}", row.speedup[s]) : "-");
      cells.push_back(comparable ? fmt::format("{:+.1f}%", row.percent[s]) : "-");
      cells.push_back(p_text(row.p_value[s]));
      cells.push_back(row.speedup_low[s] ? fmt::format("[{:.3f}, {:.3f}]", *row.speedup_low[s], *row.speedup_high[s])
                                         : "-");
      cells.push_back(verdict_text(row, s));
    }
    tables.back().add_row(std::move(cells));
  }
  return tables;
}

std::vector<std::string> summary_lines(const results::comparison& c) {
  std::vector<std::string> lines;
  for (const auto& b : c.benchmarks) {
    for (std::size_t s = 1; s < c.labels.size(); ++s) {
      if (b.cases[s] == 0) continue;
      lines.push_back(
          fmt::format("{}: {} vs {}: geometric mean speedup {:.3f} over {} case(s): {} faster, {} slower, {} same{}",
                      b.benchmark, c.labels[s], c.labels[0], b.geomean_speedup[s], b.cases[s], b.faster[s], b.slower[s],
                      b.same[s], b.unstable[s] > 0 ? fmt::format(", {} unstable", b.unstable[s]) : ""));
    }
  }
  return lines;
}

void write_text(const results::comparison& c, std::ostream& out, bool markdown) {
  out << (markdown ? "## Comparison\n\n" : "");
  out << fmt::format("{}baseline: {}; speedup > 1 means better than the baseline (higher throughput or lower time)\n",
                     markdown ? "" : "compare: ", c.labels[0]);
  out << fmt::format(
      "{}p: two-sided Mann-Whitney U on the timing samples; CI: bootstrap of the ratio of median times; same: p >= "
      "{:g} or "
      "|speedup - 1| < {:g}%; untested: no repeated samples on one side; unstable: a side's samples scatter beyond "
      "its run's --unstable-cv, so no verdict\n",
      markdown ? "\n" : "", c.options.alpha, c.options.min_difference * 100);
  for (const auto& table : tables_of(c)) {
    out << '\n';
    if (markdown) {
      table.render_markdown(out);
    } else {
      table.render_text(out);
    }
  }
  const auto lines = summary_lines(c);
  if (!lines.empty()) out << '\n';
  for (const auto& line : lines) out << (markdown ? "- " : "") << line << '\n';
  for (std::size_t s = 0; s < c.labels.size(); ++s) {
    if (c.only_in[s].empty()) continue;
    out << fmt::format("\n{}only in {} ({} case(s)):\n", markdown ? "### " : "", c.labels[s], c.only_in[s].size());
    if (markdown) out << '\n';
    for (const auto& label : c.only_in[s]) out << (markdown ? "- " : "  ") << label << '\n';
  }
  if (c.cases.empty()) out << "\nno case is present on the baseline and another side\n";
}

}  // namespace

std::string format_value(double value) {
  const double magnitude = std::abs(value);
  if (magnitude == 0) return "0";
  if (magnitude >= 1e6 || magnitude < 1e-3) return fmt::format("{:.3e}", value);
  if (magnitude >= 1000) return fmt::format("{:.0f}", value);
  if (magnitude >= 100) return fmt::format("{:.1f}", value);
  if (magnitude >= 10) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

void write_comparison_console(const results::comparison& comparison, std::ostream& out) {
  write_text(comparison, out, false);
}

void write_comparison_markdown(const results::comparison& comparison, std::ostream& out) {
  write_text(comparison, out, true);
}

}  // namespace ironbench::report
