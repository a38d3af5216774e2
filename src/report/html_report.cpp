#include "report/html_report.hpp"

#include <fmt/format.h>

#include <set>
#include <string_view>

#include "core/result_json.hpp"
#include "doctor/finding.hpp"
#include "report/burn_in_report.hpp"
#include "report/comparison_table.hpp"
#include "report/html_assets.hpp"
#include "report/html_escape.hpp"
#include "report/interactivity_chart.hpp"
#include "report/pairwise_report.hpp"
#include "report/rank_health_report.hpp"
#include "report/run_header.hpp"

namespace ironbench::report {
namespace {

/// "mean_ttft_ms", "p99_itl_ms", "p99.9_e2el_ms": a latency statistic of vLLM's result.
bool is_serving_latency_key(std::string_view key) {
  if (!key.ends_with("_ms")) return false;
  key.remove_suffix(3);
  const auto underscore = key.find('_');
  if (underscore == std::string_view::npos) return false;
  const auto statistic = key.substr(0, underscore), metric = key.substr(underscore + 1);
  const bool percentile = statistic.size() > 1 && statistic.front() == 'p' &&
                          statistic.find_first_not_of("0123456789.", 1) == std::string_view::npos;
  return (statistic == "mean" || statistic == "median" || statistic == "std" || percentile) &&
         (metric == "ttft" || metric == "tpot" || metric == "itl" || metric == "e2el");
}

/// vLLM's latency percentiles, kept in a serve case's "result" note, as metrics the charts use.
void add_serving_percentiles(const core::case_result& c, json& metrics, json& units) {
  const auto it = c.notes.find("result");
  if (it == c.notes.end()) return;
  const auto result = json::parse(it->second, nullptr, false);
  if (!result.is_object()) return;
  for (const auto& [key, value] : result.items()) {
    if (value.is_number() && !metrics.contains(key) && is_serving_latency_key(key)) {
      metrics[key] = value;
      units[key] = "ms";
    }
  }
}

json case_data(const core::case_result& c) {
  json metrics = json::object(), units = json::object();
  for (const auto& m : c.metrics) {
    if (!std::isfinite(m.value)) continue;
    metrics[m.name] = m.value;
    units[m.name] = m.unit;
  }
  if (c.benchmark == "serve") add_serving_percentiles(c, metrics, units);
  json data{{"benchmark", c.benchmark}, {"device", c.device}, {"params", core::to_json(c.params)},
            {"metrics", metrics},       {"units", units},     {"status", core::to_string(c.status)}};
  // A point of a sweep where the server saturated (serve/sweep/saturation.hpp).
  if (const auto saturation = c.notes.find("saturation"); saturation != c.notes.end()) {
    data["saturation"] = saturation->second;
  }
  // A serving point over time: the client's throughput windows and the server's scrapes.
  if (c.series.count("client_t_s") > 0) {
    json timeline = json::object();
    for (const auto& [name, values] : c.series) {
      if (name.rfind("client_", 0) != 0 && name.rfind("server_", 0) != 0) continue;
      json array = json::array();
      for (const double v : values) array.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      timeline[name] = std::move(array);
    }
    data["timeline"] = std::move(timeline);
  }
  if (const auto loss = c.series.find("loss"); loss != c.series.end()) {
    json values = json::array();
    for (const double v : loss->second) values.push_back(std::isfinite(v) ? json(v) : json(nullptr));
    data["loss"] = std::move(values);
  }
  return data;
}

void table_open(std::ostream& out, const std::vector<std::string>& headers, std::size_t text_columns) {
  out << "<table><thead><tr>";
  for (std::size_t i = 0; i < headers.size(); ++i) {
    out << (i < text_columns ? "<th class=\"text\">" : "<th>") << escape_html(headers[i]) << "</th>";
  }
  out << "</tr></thead><tbody>\n";
}

void cell(std::ostream& out, const std::string& text, bool left = false) {
  out << (left ? "<td class=\"text\">" : "<td>") << escape_html(text) << "</td>";
}

void environment_table(const html_report_input& input, std::ostream& out) {
  std::vector<std::string> keys;
  std::vector<std::map<std::string, std::string>> columns;
  for (const auto& side : input.sides) {
    std::map<std::string, std::string> values;
    const auto& run = side.runs.front();
    for (const auto& [key, value] : header_lines(run)) values[key] = value;
    values["os"] = json_text(run.host, {"os", "pretty_name"});
    values["kernel"] = json_text(run.host, {"os", "kernel_release"});
    const auto memory =
        run.host.is_object() && run.host.contains("memory") ? run.host.at("memory").value("total_bytes", 0.0) : 0.0;
    if (memory > 0) values["memory"] = fmt::format("{:.1f} GiB", memory / (1024.0 * 1024 * 1024));
    values["hypervisor"] = json_text(run.host, {"virtualization", "hypervisor"});
    values["container"] = json_text(run.host, {"container", "engine"});
    values["gpu"] = json_text(run.host, {"gpu"});  // published baselines describe their hardware
    values["source"] = json_text(run.host, {"source", "title"});
    std::string tags;
    for (const auto& [key, value] : run.tags) tags += (tags.empty() ? "" : ", ") + key + "=" + value;
    values["tags"] = tags;
    values["status"] = core::to_string(run.status);
    if (side.runs.size() > 1) values["runs"] = fmt::format("{} runs pooled (first shown)", side.runs.size());
    for (const auto& [key, value] : values) {
      if (!value.empty() && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    columns.push_back(std::move(values));
  }
  std::vector<std::string> headers = {""};
  for (const auto& side : input.sides) headers.push_back(side.label);
  table_open(out, headers, headers.size());
  for (const auto& key : keys) {
    out << "<tr>";
    cell(out, key, true);
    for (const auto& column : columns) cell(out, column.count(key) ? column.at(key) : "", true);
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

void comparison_section(const results::comparison& c, std::ostream& out) {
  out << "<h2>Comparison</h2>\n<p class=\"note\">"
      << escape_html(fmt::format(
             "Baseline: {}. Speedup > 1 means better than the baseline. p: two-sided Mann-Whitney U on the timing "
             "samples; "
             "interval: bootstrap of the ratio of median times ({:g}%); same: p >= {:g} or |speedup - 1| < {:g}%; "
             "unstable: a side's samples scatter too widely for a verdict.",
             c.labels[0], c.options.confidence * 100, c.options.alpha, c.options.min_difference * 100))
      << "</p>\n";
  std::vector<std::string> headers = {"benchmark", "case", "metric"};
  for (const auto& label : c.labels) headers.push_back(label);
  for (std::size_t s = 1; s < c.labels.size(); ++s) {
    for (const char* h : {"speedup", "diff", "p", "interval", "verdict"}) {
      headers.push_back(c.labels.size() > 2 ? fmt::format("{} {}", h, c.labels[s]) : h);
    }
  }
  table_open(out, headers, 3);
  for (const auto& row : c.cases) {
    const auto v = row.verdicts.size() > 1 ? row.verdicts[1] : results::verdict::not_comparable;
    out << "<tr class=\"" << results::to_string(v) << "\">";
    cell(out, row.benchmark, true);
    cell(out, row.key, true);
    cell(out, row.metric + (row.unit.empty() ? "" : " (" + row.unit + ")"), true);
    for (const auto& value : row.values) cell(out, value ? format_value(value->value) : "-");
    for (std::size_t s = 1; s < c.labels.size(); ++s) {
      const bool comparable = row.verdicts[s] != results::verdict::not_comparable;
      cell(out, comparable ? fmt::format("{:.3f}", row.speedup[s]) : "-");
      cell(out, comparable ? fmt::format("{:+.1f}%", row.percent[s]) : "-");
      cell(out, row.p_value[s] ? fmt::format("{:.4g}", *row.p_value[s]) : "untested");
      cell(out, row.speedup_low[s] ? fmt::format("[{:.3f}, {:.3f}]", *row.speedup_low[s], *row.speedup_high[s]) : "-");
      out << "<td class=\"text verdict\">" << escape_html(results::to_string(row.verdicts[s])) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n<ul>\n";
  for (const auto& b : c.benchmarks) {
    for (std::size_t s = 1; s < c.labels.size(); ++s) {
      if (b.cases[s] == 0) continue;
      out << "<li>"
          << escape_html(fmt::format(
                 "{}: {} vs {}: geometric mean speedup {:.3f} over {} case(s) ({} faster, {} slower, {} same{})",
                 b.benchmark, c.labels[s], c.labels[0], b.geomean_speedup[s], b.cases[s], b.faster[s], b.slower[s],
                 b.same[s], b.unstable[s] > 0 ? fmt::format(", {} unstable", b.unstable[s]) : ""))
          << "</li>\n";
    }
  }
  out << "</ul>\n";
  for (std::size_t s = 0; s < c.labels.size(); ++s) {
    if (c.only_in[s].empty()) continue;
    out << "<details><summary>" << escape_html(fmt::format("Only in {} ({} cases)", c.labels[s], c.only_in[s].size()))
        << "</summary><ul>\n";
    for (const auto& label : c.only_in[s]) out << "<li>" << escape_html(label) << "</li>\n";
    out << "</ul></details>\n";
  }
}

void cost_section(const std::vector<results::cost_row>& rows, std::ostream& out) {
  if (rows.empty()) return;
  out << "<h2>Cost</h2>\n";
  table_open(
      out,
      {"side", "benchmark", "case", "metric", "value", "USD per hour", "value per USD/hour", "USD per million tokens"},
      4);
  for (const auto& r : rows) {
    out << "<tr>";
    cell(out, r.side, true);
    cell(out, r.benchmark, true);
    cell(out, r.key, true);
    cell(out, r.metric + (r.unit.empty() ? "" : " (" + r.unit + ")"), true);
    cell(out, format_value(r.value));
    cell(out, fmt::format("{:.2f}", r.node_usd_per_hour));
    cell(out, format_value(r.value_per_usd_hour));
    cell(out, r.usd_per_million_tokens ? fmt::format("{:.4f}", *r.usd_per_million_tokens) : "-");
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

// Each run's validation (`ironbench validate`, settings.validation): its verdict and checks.
void validation_section(const html_report_input& input, std::ostream& out) {
  bool heading = false;
  for (const auto& side : input.sides) {
    for (const auto& run : side.runs) {
      if (!run.settings.is_object() || !run.settings.contains("validation")) continue;
      const auto& v = run.settings["validation"];
      if (!heading) out << "<h2>Validation</h2>\n";
      heading = true;
      out << "<h3>"
          << escape_html(fmt::format("{}: {} ({})", side.label, v.value("verdict", "?"), v.value("level", "?")))
          << "</h3>\n<p class=\"note\">" << escape_html(v.value("rules", json::object()).value("text", ""))
          << " Expected values: " << escape_html(v.value("expectations", "")) << ".</p>\n";
      table_open(out, {"check", "device", "measured", "expected", "ratio", "verdict", "rule"}, 2);
      for (const auto& c : v.value("checks", json::array())) {
        out << "<tr>";
        cell(out, c.value("check", ""), true);
        cell(out, c.value("device", ""), true);
        const auto unit = c.value("unit", "");
        cell(out, c.contains("measured") ? fmt::format("{:.4g} {}", c["measured"].get<double>(), unit) : "-");
        cell(out, c.contains("expected") ? fmt::format("{:.4g} {}", c["expected"].get<double>(), unit) : "-");
        cell(out, c.contains("ratio") ? fmt::format("{:.2f}", c["ratio"].get<double>()) : "-");
        const auto verdict = c.value("verdict", "");
        const char* status = verdict == "FAIL" ? "failed" : verdict == "WARN" ? "invalid" : "valid";
        out << "<td class=\"text status-" << status << "\">" << escape_html(verdict) << "</td>";
        cell(out,
             c.value("rule", "") +
                 (c.contains("expected_source") ? " (expected: " + c.value("expected_source", "") + ")" : ""),
             true);
        out << "</tr>\n";
      }
      out << "</tbody></table>\n";
      write_burn_in_section(out, v);
    }
  }
}

// The doctor's findings that concern a benchmark's cases in `run`, above its table.
void findings_beside(const core::run_result& run, const std::string& benchmark, std::ostream& out) {
  if (!run.findings.is_array()) return;
  std::set<std::string> devices;
  for (const auto& c : run.cases) {
    if (c.benchmark == benchmark) devices.insert(c.device);
  }
  bool open = false;
  for (const auto& j : run.findings) {
    const auto f = doctor::finding_from_json(j);
    if (std::none_of(devices.begin(), devices.end(),
                     [&](const std::string& d) { return doctor::affects_case(f, benchmark, d); })) {
      continue;
    }
    if (!open) out << "<ul class=\"findings\">\n";
    open = true;
    out << "<li class=\"finding-" << doctor::to_string(f.level) << "\"><strong>"
        << escape_html(doctor::to_string(f.level)) << "</strong> " << escape_html(f.summary)
        << "<br><span class=\"note\">read: " << escape_html(f.evidence) << "<br>fix: " << escape_html(f.fix)
        << "</span></li>\n";
  }
  if (open) out << "</ul>\n";
}

void cases_section(const html_report_input& input, std::ostream& out) {
  for (const auto& side : input.sides) {
    for (const auto& run : side.runs) {
      std::set<std::string> benchmarks;
      for (const auto& c : run.cases) benchmarks.insert(c.benchmark);
      for (const auto& benchmark : benchmarks) {
        out << "<h3>" << escape_html(fmt::format("{}: {}", side.label, benchmark)) << "</h3>\n";
        findings_beside(run, benchmark, out);
        std::vector<std::string> params, metrics;
        for (const auto& c : run.cases) {
          if (c.benchmark != benchmark) continue;
          for (const auto& [name, value] : c.params.entries()) {
            if (std::find(params.begin(), params.end(), name) == params.end()) params.push_back(name);
          }
          for (const auto& m : c.metrics) {
            if (std::find(metrics.begin(), metrics.end(), m.name) == metrics.end()) metrics.push_back(m.name);
          }
        }
        std::vector<std::string> headers = {"device"};
        headers.insert(headers.end(), params.begin(), params.end());
        headers.insert(headers.end(), metrics.begin(), metrics.end());
        headers.emplace_back("status");
        table_open(out, headers, 1 + params.size());
        for (const auto& c : run.cases) {
          if (c.benchmark != benchmark) continue;
          out << "<tr>";
          cell(out, c.device, true);
          for (const auto& name : params) {
            cell(out, c.params.contains(name) ? core::to_string(c.params.at(name)) : "", true);
          }
          for (const auto& name : metrics) {
            const auto* m = c.find_metric(name);
            cell(out, m ? format_value(m->value) + (m->unit.empty() ? "" : " " + m->unit) : "");
          }
          const std::string status = core::to_string(c.status);
          if (c.status == core::case_status::valid && c.unstable) {
            out << "<td class=\"text status-unstable\">" << escape_html("valid, unstable: " + c.unstable->describe())
                << "</td></tr>\n";
            continue;
          }
          out << "<td class=\"text status-" << status << "\">"
              << escape_html(c.reason.empty() ? status : status + ": " + c.reason) << "</td></tr>\n";
        }
        out << "</tbody></table>\n";
      }
    }
  }
}

// An experiment's points: matrix values, outcome, stored run; then each failure with its log.
void experiment_section(const json& experiment, std::ostream& out) {
  out << "<h2>Points</h2>\n<p class=\"note\">"
      << escape_html(fmt::format("Experiment {} (hash {}), recipe {}; each point is a stored run.",
                                 experiment.value("name", ""), experiment.value("hash", ""),
                                 experiment.value("recipe", "")))
      << "</p>\n";
  std::vector<std::string> headers = {"point"};
  for (const auto& name : experiment.at("matrix")) headers.push_back(name.get<std::string>());
  for (const char* h : {"outcome", "run", "cases", "reason"}) headers.emplace_back(h);
  table_open(out, headers, headers.size());
  for (const auto& p : experiment.at("points")) {
    const auto outcome = p.value("outcome", "");
    out << "<tr class=\"point-" << escape_html(outcome) << "\">";
    cell(out, std::to_string(p.value("index", 0)), true);
    for (const auto& name : experiment.at("matrix")) {
      cell(out, p.at("values").value(name.get<std::string>(), ""), true);
    }
    cell(out, outcome, true);
    cell(out, p.value("run", 0) > 0 ? std::to_string(p.value("run", 0)) : "-", true);
    cell(out, std::to_string(p.value("cases", 0)), true);
    cell(out, p.value("reason", ""), true);
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
  bool heading = false;
  for (const auto& p : experiment.at("points")) {
    if (p.value("outcome", "") != "failed") continue;
    if (!heading) out << "<h2>Failures</h2>\n";
    heading = true;
    out << "<h3>" << escape_html(fmt::format("point {}: {}", p.value("index", 0), p.value("label", ""))) << "</h3>\n"
        << "<p>" << escape_html(p.value("reason", "")) << "</p>\n";
    const auto tail = p.value("log_tail", "");
    if (!tail.empty()) out << "<pre class=\"log\">" << escape_html(tail) << "</pre>\n";
  }
}

}  // namespace

json html_page_data(const html_report_input& input) {
  json sides = json::array();
  for (const auto& side : input.sides) {
    json runs = json::array(), cases = json::array(), telemetry = json::array();
    for (const auto& run : side.runs) {
      runs.push_back({{"start_time", run.start_time}, {"host", json_text(run.host, {"hostname"})}, {"tags", run.tags}});
      const auto first = cases.size();
      for (const auto& c : run.cases) cases.push_back(case_data(c));
      if (run.telemetry.is_array()) {
        for (const auto& series : run.telemetry) {
          if (!series.is_object() || !series.contains("samples")) continue;
          auto copy = series;
          if (copy.contains("case") && copy.at("case").is_number_integer())
            copy["case"] = first + copy.at("case").get<std::size_t>();
          telemetry.push_back(std::move(copy));
        }
      }
    }
    sides.push_back({{"label", side.label}, {"runs", runs}, {"cases", cases}, {"telemetry", telemetry}});
  }
  json data = {{"title", input.title}, {"sides", sides}};
  // Serving: each side's throughput (per GPU) against interactivity, with its Pareto frontier.
  if (auto curve = interactivity_chart_data(input.sides); !curve.is_null()) data["interactivity"] = std::move(curve);
  if (!input.experiment.is_null()) data["matrix"] = input.experiment.at("matrix");
  return data;
}

void write_html_report(const html_report_input& input, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
         "style-src 'unsafe-inline'; img-src data:\">\n"
      << "<title>" << escape_html(input.title) << "</title>\n<style>" << report_css() << "</style></head>\n<body>\n"
      << "<h1>" << escape_html(input.title) << "</h1>\n";
  out << "<h2>Environment</h2>\n";
  environment_table(input, out);
  if (!input.experiment.is_null()) experiment_section(input.experiment, out);
  validation_section(input, out);
  write_pairwise_sections(out, input);
  write_rank_health_sections(out, input);
  if (input.comparison) comparison_section(*input.comparison, out);
  cost_section(input.cost, out);
  out << "<h2>Charts</h2>\n<div id=\"charts\"></div>\n";
  out << "<h2>Cases</h2>\n";
  cases_section(input, out);
  out << "<script type=\"application/json\" id=\"ironbench-data\">" << json_for_script(html_page_data(input))
      << "</script>\n";
  out << "<script>" << chart_js() << "</script>\n<script>" << report_js() << "</script>\n</body></html>\n";
}

}  // namespace ironbench::report
