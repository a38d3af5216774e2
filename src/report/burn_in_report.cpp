#include "report/burn_in_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

#include "core/json_text.hpp"
#include "report/html_escape.hpp"

namespace ironbench::report {
namespace {

std::string number(const json& j, const char* key, const char* unit, int digits) {
  if (!j.contains(key) || !j[key].is_number()) return "n/a";
  return fmt::format("{:.{}f} {}", j[key].get<double>(), digits, unit);
}

std::string errors_text(const json& errors) {
  std::string text;
  const auto rises = errors.value("rises", json::array());
  for (const auto& r : rises) {
    text += fmt::format("{}{} +{}", text.empty() ? "" : ", ", r.value("counter", "?"),
                        r.value("after", std::uint64_t{0}) - r.value("before", std::uint64_t{0}));
  }
  const auto xids = errors.value("xids", json::object());
  for (const auto& [device, codes] : xids.items()) {
    for (const auto& code : codes) text += fmt::format("{}XID {}", text.empty() ? "" : ", ", core::json_text(code));
  }
  return text.empty() ? "none" : text;
}

}  // namespace

void write_burn_in_section(std::ostream& out, const json& validation) {
  if (!validation.is_object() || !validation.contains("burn_in")) return;
  const auto& b = validation["burn_in"];
  const auto& bounds = b.value("bounds", json::object());
  out << "<h3>Burn-in</h3>\n<p class=\"note\">"
      << escape_html(
             fmt::format("{} of {} intervals of {:g} s; FAIL on a drop above {:g} %, a CV above {:g} %, corrected "
                         "errors rising by more than {}, any uncorrected error. {}",
                         b.value("intervals_measured", 0), b.value("intervals_planned", 0), b.value("interval_s", 0.0),
                         bounds.value("max_drop", 0.0) * 100, bounds.value("max_cv", 0.0) * 100,
                         bounds.value("max_corrected", 0), b.value("interval_note", "")))
      << "</p>\n";
  // Each workload's throughput per interval, as bars scaled to its best interval.
  std::map<std::string, std::vector<double>> series;
  std::map<std::string, std::string> units;
  for (const auto& i : b.value("intervals", json::array())) {
    for (const auto& d : i.value("devices", json::array())) {
      for (const auto& w : d.value("throughput", json::array())) {
        const auto key = d.value("device", "") + " " + w.value("workload", "");
        series[key].push_back(w.value("value", 0.0));
        units[key] = w.value("unit", "");
      }
    }
  }
  for (const auto& [key, values] : series) {
    const double best = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    out << "<p>" << escape_html(key) << "</p>\n<svg class=\"burn-in\" width=\"" << 12 * values.size() + 4
        << "\" height=\"64\" role=\"img\" aria-label=\"" << escape_html(key) << " per interval\">";
    for (std::size_t n = 0; n < values.size(); ++n) {
      const double h = best > 0 ? 60 * values[n] / best : 0;
      out << fmt::format(
          "<rect x=\"{}\" y=\"{:.1f}\" width=\"10\" height=\"{:.1f}\" fill=\"#4a7ab5\"><title>interval "
          "{}: {}</title></rect>",
          2 + 12 * n, 62 - h, h, n + 1, escape_html(fmt::format("{:.4g} {}", values[n], units[key])));
    }
    out << "</svg>\n";
  }
  out << "<table><thead><tr><th>interval</th><th>s</th><th>device</th><th>throughput</th><th>clock</th>"
         "<th>temperature</th><th>power</th><th>errors</th></tr></thead><tbody>\n";
  for (const auto& i : b.value("intervals", json::array())) {
    for (const auto& d : i.value("devices", json::array())) {
      std::string throughput;
      for (const auto& w : d.value("throughput", json::array())) {
        if (!throughput.empty()) throughput += "; ";
        throughput += w.contains("value") ? fmt::format("{} {:.4g} {}", w.value("workload", ""),
                                                        w["value"].get<double>(), w.value("unit", ""))
                                          : w.value("workload", "") + " " + w.value("status", "");
      }
      out << "<tr><td>" << i.value("index", 0) << "</td><td>" << fmt::format("{:.1f}", i.value("duration_s", 0.0))
          << "</td><td class=\"text\">" << escape_html(d.value("device", "")) << "</td><td class=\"text\">"
          << escape_html(throughput) << "</td><td>" << escape_html(number(d, "clock_mhz", "MHz", 0)) << "</td><td>"
          << escape_html(number(d, "temperature_c", "C", 0)) << "</td><td>" << escape_html(number(d, "power_w", "W", 1))
          << "</td><td class=\"text\">" << escape_html(errors_text(d.value("errors", json::object())))
          << "</td></tr>\n";
    }
  }
  out << "</tbody></table>\n";
}

}  // namespace ironbench::report
