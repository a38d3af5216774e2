#include "report/trend_page.hpp"

#include <fmt/format.h>

#include "report/comparison_table.hpp"
#include "report/html_assets.hpp"
#include "report/html_escape.hpp"

namespace ironbench::report {
namespace {

// Draws one line chart per case from the page's JSON: the values in run order, the reference
// each judged run was compared with (dashed), regressions as red triangles and improvements as
// green ones. Text reaches the page through textContent and Chart.js only.
constexpr std::string_view trend_script = R"js((function () {
  'use strict';
  const series = JSON.parse(document.getElementById('ironbench-trend').textContent);
  const area = document.getElementById('charts');
  if (typeof Chart === 'undefined') {
    const missing = document.createElement('p');
    missing.textContent = 'This ironbench was built without Chart.js (libjs-chart.js): no charts.';
    area.append(missing);
    document.body.dataset.charts = 'unavailable';
    return;
  }
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  const colorOf = (flag) => (flag === 'REGRESSION' ? '#d62728' : flag === 'improvement' ? '#2ca02c' : '#1f77b4');
  for (const s of series) {
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.textContent = s.case + ': ' + s.metric + ' (' + s.unit + ', ' +
                          (s.higher_is_better ? 'higher' : 'lower') + ' is better)';
    const canvas = document.createElement('canvas');
    canvas.width = 1000;
    canvas.height = 320;
    figure.append(caption, canvas);
    area.append(figure);
    const labels = s.runs.map((r) => 'run ' + r.run + ' ' + r.start_time.slice(0, 10));
    const flagged = (r) => r.flag === 'REGRESSION' || r.flag === 'improvement';
    new Chart(canvas, {
      type: 'line',
      data: {
        labels,
        datasets: [
          {label: s.metric, data: s.runs.map((r) => r.value), borderColor: '#1f77b4',
           pointBackgroundColor: s.runs.map((r) => colorOf(r.flag)),
           pointBorderColor: s.runs.map((r) => colorOf(r.flag)),
           pointStyle: s.runs.map((r) => (flagged(r) ? 'triangle' : 'circle')),
           pointRadius: s.runs.map((r) => (flagged(r) ? 9 : 3))},
          {label: 'reference (median of the runs before)',
           data: s.runs.map((r) => (r.reference_runs > 0 ? r.reference : null)),
           borderColor: '#7f7f7f', borderDash: [6, 4], pointRadius: 0, spanGaps: false},
        ],
      },
      options: {plugins: {legend: {position: 'bottom'}},
                scales: {y: {title: {display: true, text: s.metric + ' (' + s.unit + ')'}}}},
    });
    canvas.dataset.flagged = String(s.runs.filter(flagged).length);
  }
  // Say on the page whether every chart drew: canvases with painted pixels.
  let painted = 0, blank = 0;
  for (const canvas of document.querySelectorAll('#charts canvas')) {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) count++;
    if (count > 0) painted++; else blank++;
  }
  document.body.dataset.charts = String(painted + blank);
  document.body.dataset.chartsPainted = String(painted);
  document.body.dataset.chartsBlank = String(blank);
})();
)js";

}  // namespace

void write_trend_html(const std::vector<results::trend_series>& series, const std::string& title, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
      << "<title>" << escape_html(title) << "</title>\n<style>" << report_css() << "</style></head>\n<body>\n"
      << "<h1>" << escape_html(title) << "</h1>\n<h2>Changes</h2>\n";
  std::size_t changes = 0;
  for (const auto& s : series) {
    for (const auto& e : s.entries) {
      if (e.verdict.flag != results::trend_flag::regression && e.verdict.flag != results::trend_flag::improvement) {
        continue;
      }
      if (changes++ == 0) {
        out << "<table><thead><tr><th>case</th><th>metric</th><th>first run at the new level</th><th>start "
               "(UTC)</th><th>before</th><th>after</th><th>change</th><th>p</th><th>flag</th></tr></thead><tbody>\n";
      }
      const auto& v = e.verdict;
      out << fmt::format(
          "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td></tr>\n",
          v.flag == results::trend_flag::regression ? "regression" : "improvement", escape_html(s.label()),
          escape_html(s.metric), e.run, escape_html(e.start_time), format_value(v.reference), format_value(e.value),
          v.rule == results::trend_rule::from_zero ? fmt::format("from 0: {:+}", v.absolute_change)
                                                   : fmt::format("{:+.1f} %", v.change * 100),
          v.p_value ? fmt::format("{:.2g}", *v.p_value) : "-", results::to_string(v.flag));
    }
  }
  out << (changes == 0 ? "<p>No significant change in these runs.</p>\n" : "</tbody></table>\n");
  out << "<h2>History</h2>\n<div id=\"charts\"></div>\n";
  out << "<script type=\"application/json\" id=\"ironbench-trend\">" << json_for_script(results::trends_json(series))
      << "</script>\n";
  out << "<script>" << chart_js() << "</script>\n<script>" << trend_script << "</script>\n</body></html>\n";
}

}  // namespace ironbench::report
