#include "report/pairwise_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "report/html_escape.hpp"

namespace ironbench::report {
namespace {

std::vector<std::string> pairwise_labels(const json& p) {
  std::vector<std::string> labels;
  for (const auto& participant : p.value("participants", json::array())) {
    labels.push_back(participant.value("label", std::string("?")));
  }
  return labels;
}

double heat_cell_value(const json& cell) { return cell.is_number() ? cell.get<double>() : std::nan(""); }

std::string pairwise_participant_line(const json& participant) {
  return fmt::format("{} (rank {}, {}{})", participant.value("label", ""), participant.value("rank", -1),
                     participant.value("host", ""),
                     participant.value("ranks_on_node", 1) > 1
                         ? fmt::format(", {} ranks on the node", participant.value("ranks_on_node", 1))
                         : std::string());
}

std::string pairwise_heading(const json& p) {
  const auto n = p.value("participants", json::array()).size();
  return fmt::format("Pairwise bandwidth: {} {} ({} of {} ranks measure), {} pairs in {} rounds, {} iterations, {}", n,
                     p.value("mode", "nodes"), n, p.value("ranks", 0), p.value("pairs", 0), p.value("rounds", 0),
                     p.value("iterations", 0), format_seconds(p.value("seconds", 0.0)));
}

std::vector<std::string> pairwise_finding_lines(const json& p) {
  std::vector<std::string> lines;
  const auto& f = p.value("findings", json::object());
  if (!f.value("judged", false)) {
    lines.push_back("not judged: " + f.value("reason", std::string()));
    return lines;
  }
  lines.push_back(fmt::format("reference link {:.3g} GB/s (one way, {}); low: below {:g} x the reference = {:.3g} GB/s",
                              f.value("median_gbs", 0.0), format_bytes(p.value("judged_at_bytes", 0.0)),
                              f.value("factor", 0.0), f.value("threshold_gbs", 0.0)));
  for (const auto& node : f.value("bad_nodes", json::array())) {
    lines.push_back(fmt::format("the node: {} ({} of its {} links low)", node.value("node", ""),
                                node.value("low_links", 0), node.value("links", 0)));
  }
  for (const auto& l : f.value("bad_links", json::array())) {
    lines.push_back(fmt::format("the link: {} <-> {} ({:.3g} GB/s, {:.2f} x the reference)", l.value("a", ""),
                                l.value("b", ""), l.value("gbs", 0.0), l.value("ratio", 0.0)));
  }
  if (f.value("low_links", json::array()).empty()) {
    const auto cleared = f.value("suspects", json::array()).size();
    lines.push_back(cleared == 0 ? std::string("no low link")
                                 : fmt::format("no low link ({} suspect{} not slow again when measured again)", cleared,
                                               cleared == 1 ? "" : "s"));
  }
  return lines;
}

}  // namespace

std::string heat_colour(double ratio) {
  if (!std::isfinite(ratio)) return "#eeeeee";
  const double t = std::clamp((ratio - 0.5) / 0.5, 0.0, 1.0);
  return fmt::format("hsl({:.0f}, 70%, 80%)", 120 * t);
}

void write_pairwise_console(std::ostream& out, const json& p) {
  if (!p.is_object()) return;
  const auto labels = pairwise_labels(p);
  out << pairwise_heading(p) << '\n';
  const auto participants = p.value("participants", json::array());
  for (std::size_t i = 0; i < participants.size(); ++i) {
    out << fmt::format("  [{}] {}\n", i, pairwise_participant_line(participants[i]));
  }
  for (const auto& m : p.value("matrices", json::array())) {
    out << fmt::format("\none way at {}, GB/s (row [i] sends to column [j]):\n", format_bytes(m.value("bytes", 0.0)));
    out << fmt::format("{:>6}", "");
    for (std::size_t j = 0; j < labels.size(); ++j) out << fmt::format("{:>9}", fmt::format("[{}]", j));
    out << '\n';
    const auto rows = m.value("one_way_gbs", json::array());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out << fmt::format("{:>6}", fmt::format("[{}]", i));
      for (const auto& c : rows[i]) {
        const double v = heat_cell_value(c);
        out << (std::isfinite(v) ? fmt::format("{:>9.3f}", v) : fmt::format("{:>9}", "-"));
      }
      out << '\n';
    }
  }
  out << '\n';
  for (const auto& line : pairwise_finding_lines(p)) out << line << '\n';
  const auto wrong = p.value("wrong_bytes", std::int64_t{0});
  out << (wrong == 0 ? std::string("wrong bytes: 0 (every byte received checked against its sender's pattern)")
                     : fmt::format("wrong bytes: {} FAILED (data received differs from what was sent)", wrong))
      << '\n';
  if (p.value("interrupted", false)) out << "interrupted: the rounds measured so far\n";
  if (!p.value("fault", std::string()).empty()) out << "injected fault: " << p.value("fault", std::string()) << '\n';
}

void write_pairwise_sections(std::ostream& out, const html_report_input& input) {
  bool heading = false;
  for (const auto& side : input.sides) {
    for (const auto& run : side.runs) {
      if (!run.settings.is_object() || !run.settings.contains("pairwise")) continue;
      if (!heading) out << "<h2>Pairwise bandwidth</h2>\n";
      heading = true;
      write_pairwise_html(out, run.settings["pairwise"], side.label);
    }
  }
}

void write_pairwise_html(std::ostream& out, const json& p, const std::string& heading) {
  if (!p.is_object()) return;
  const auto labels = pairwise_labels(p);
  out << "<h3>" << escape_html(heading) << "</h3>\n<p class=\"note\">" << escape_html(pairwise_heading(p))
      << "</p>\n<ul>\n";
  for (const auto& line : pairwise_finding_lines(p)) out << "<li>" << escape_html(line) << "</li>\n";
  out << "<li>" << escape_html(fmt::format("wrong bytes: {}", p.value("wrong_bytes", std::int64_t{0}))) << "</li>\n";
  out << "</ul>\n";
  const double median = p.value("findings", json::object()).value("median_gbs", 0.0);
  for (const auto& m : p.value("matrices", json::array())) {
    const auto rows = m.value("one_way_gbs", json::array());
    // Shaded against the median of this size's matrix (the findings judge the largest).
    std::vector<double> values;
    for (const auto& row : rows) {
      for (const auto& c : row) {
        if (std::isfinite(heat_cell_value(c))) values.push_back(heat_cell_value(c));
      }
    }
    std::sort(values.begin(), values.end());
    const double mid = values.empty() ? median : values[values.size() / 2];
    out << "<p class=\"note\">"
        << escape_html(fmt::format("One way at {}, GB/s: row sends to column; shaded by the ratio to the median {:.3g}",
                                   format_bytes(m.value("bytes", 0.0)), mid))
        << "</p>\n<table class=\"heatmap\"><thead><tr><th class=\"text\">from \\ to</th>";
    for (const auto& l : labels) out << "<th>" << escape_html(l) << "</th>";
    out << "</tr></thead><tbody>\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out << "<tr><th class=\"text\">" << escape_html(i < labels.size() ? labels[i] : "?") << "</th>";
      for (const auto& c : rows[i]) {
        const double v = heat_cell_value(c);
        if (!std::isfinite(v)) {
          out << "<td>-</td>";
          continue;
        }
        out << "<td style=\"background:" << heat_colour(mid > 0 ? v / mid : std::nan("")) << "\" title=\""
            << escape_html(fmt::format("{:.2f} x the median", mid > 0 ? v / mid : 0)) << "\">"
            << fmt::format("{:.3f}", v) << "</td>";
      }
      out << "</tr>\n";
    }
    out << "</tbody></table>\n";
  }
}

}  // namespace ironbench::report
