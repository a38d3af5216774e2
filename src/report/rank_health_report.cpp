#include "report/rank_health_report.hpp"

#include <fmt/format.h>

#include "report/html_escape.hpp"

namespace ironbench::report {
namespace {

std::string text(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

double number(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

void hang_part(const json& hang, std::ostream& out) {
  out << "<p class=\"status-failed\">" << escape_html(text(hang, "summary")) << "</p>\n";
  const auto& culprits = hang.value("culprits", json::array());
  if (!culprits.is_array() || culprits.empty()) return;
  out << "<table><thead><tr><th>rank</th><th class=\"text\">host</th><th class=\"text\">state</th>"
         "<th>last operation</th><th class=\"text\">why</th></tr></thead><tbody>\n";
  for (const auto& c : culprits) {
    out << "<tr><td>" << static_cast<long long>(number(c, "rank")) << "</td><td class=\"text\">"
        << escape_html(text(c, "host")) << "</td><td class=\"text\">" << escape_html(text(c, "state")) << "</td><td>"
        << static_cast<long long>(number(c, "last_operation")) << "</td><td class=\"text\">"
        << escape_html(text(c, "why")) << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
}

void straggler_part(const json& s, std::ostream& out) {
  for (const auto& line : s.value("summary", json::array())) {
    if (line.is_string()) out << "<p>" << escape_html(line.get<std::string>()) << "</p>\n";
  }
  out << "<p class=\"note\">" << escape_html(text(s, "method")) << "</p>\n";
  out << "<table><thead><tr><th>rank</th><th class=\"text\">host</th><th>steps last</th><th>share last</th>"
         "<th>median lateness (ms)</th><th>max lateness (ms)</th></tr></thead><tbody>\n";
  for (const auto& r : s.value("per_rank", json::array())) {
    const bool named = r.value("named", false);
    const auto cell = [&](const std::string& v) { return named ? "<b>" + v + "</b>" : v; };
    out << "<tr><td>" << cell(fmt::format("{}", static_cast<long long>(number(r, "rank"))))
        << "</td><td class=\"text\">" << cell(escape_html(text(r, "host"))) << "</td><td>"
        << static_cast<long long>(number(r, "steps_last")) << "</td><td>"
        << fmt::format("{:.0f}%", number(r, "share_last") * 100) << "</td><td>"
        << fmt::format("{:.3g}", number(r, "median_lateness_ms")) << "</td><td>"
        << fmt::format("{:.3g}", number(r, "max_lateness_ms")) << "</td></tr>\n";
  }
  out << "</tbody></table>\n";
}

}  // namespace

void write_rank_health_sections(std::ostream& out, const html_report_input& input) {
  bool heading = false;
  for (const auto& side : input.sides) {
    for (const auto& run : side.runs) {
      if (!run.settings.is_object()) continue;
      const bool hang = run.settings.contains("hang") && run.settings["hang"].is_object();
      const bool stragglers = run.settings.contains("stragglers") && run.settings["stragglers"].is_object();
      if (!hang && !stragglers) continue;
      if (!heading) out << "<h2>Rank health</h2>\n";
      heading = true;
      out << "<h3>" << escape_html(fmt::format("{}: {}", side.label, run.start_time)) << "</h3>\n";
      if (hang) hang_part(run.settings["hang"], out);
      if (stragglers) straggler_part(run.settings["stragglers"], out);
    }
  }
}

}  // namespace ironbench::report
