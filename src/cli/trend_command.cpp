// ironbench trend METRIC: a case's value over the stored runs in time order, with the changes
// found (results/trend_detection.hpp); exit 1 on a regression among the newest runs.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/side_selection.hpp"
#include "cli/trend_selection.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "report/comparison_table.hpp"
#include "report/text_table.hpp"
#include "results/results_store.hpp"

namespace ironbench::cli {
namespace {

struct trend_command_arguments {
  trend_arguments selection;
  std::string format = "console";
  std::string output = "-";
  std::size_t recent = 1;
};

std::string trend_percent(double change) { return fmt::format("{:+.1f} %", change * 100); }

/// "REGRESSION at run 21 (2026-03-21T02:00:00Z, node-a): bandwidth 81.2 -> 73.0 GB/s (-10.1 %; ..."
std::string trend_change_line(const results::trend_series& s, const results::trend_entry& e) {
  const auto& v = e.verdict;
  if (v.rule == results::trend_rule::from_zero) {
    return fmt::format(
        "{} at run {} ({}, {}): {} 0 -> {} {} (from 0: {:+} {}; the {} runs before were all 0, where no ratio "
        "exists), a change from zero",
        results::to_string(v.flag), e.run, e.start_time, e.host, s.metric, report::format_value(v.level), s.unit,
        v.absolute_change, s.unit, v.reference_runs);
  }
  const std::string head = fmt::format("{} at run {} ({}, {}): {} {} -> {} {} ({}; ", results::to_string(v.flag), e.run,
                                       e.start_time, e.host, s.metric, report::format_value(v.reference),
                                       report::format_value(v.level), s.unit, trend_percent(v.change));
  if (v.rule == results::trend_rule::change_point) {
    return head + fmt::format(
                      "the medians of the {} runs before and the {} from it on), a change point (E-divisive, "
                      "permutation p = {:.2g}) found at run {}",
                      v.reference_runs, v.level_runs, v.p_value.value_or(1), s.entries.at(v.detected_at).run);
  }
  std::string line = head + fmt::format("the median of the {} runs before)", v.reference_runs);
  if (v.p_value) line += fmt::format(", U test p = {:.2g}", *v.p_value);
  if (v.speedup_low && v.speedup_high) {
    const double speedup = s.higher_is_better ? e.value / v.reference : v.reference / e.value;
    line += fmt::format(", speedup {:.3f} [{:.3f}, {:.3f}]", speedup, *v.speedup_low, *v.speedup_high);
  }
  if (!v.confirmed) return line + "; unconfirmed: a new level if the next runs agree, an outlier if not";
  return line + "; the first run at the new level, confirmed by the runs after it";
}

void write_trend_tables(const std::vector<results::trend_series>& all, bool markdown, std::ostream& out) {
  for (const auto& s : all) {
    out << fmt::format("{}{}: {} ({}, {} is better), {} run(s)\n", markdown ? "\n## " : "\n", s.label(), s.metric,
                       s.unit.empty() ? "no unit" : s.unit, s.higher_is_better ? "higher" : "lower", s.entries.size());
    if (markdown) out << '\n';
    report::text_table table;
    for (const char* column : {"run", "start (UTC)", "host", "value", "vs before", "p"}) table.add_column(column);
    table.add_column("", report::text_table::align::left);
    for (const auto& e : s.entries) {
      const auto& v = e.verdict;
      const bool judged = v.flag != results::trend_flag::history;
      std::string flag = results::to_string(v.flag);
      if (!v.confirmed) flag += " (unconfirmed)";
      if (v.flag == results::trend_flag::steady) flag = "";
      if (v.flag == results::trend_flag::history) flag = "(building history)";
      const bool from_zero = v.rule == results::trend_rule::from_zero;
      table.add_row({std::to_string(e.run), e.start_time, e.host, report::format_value(e.value),
                     from_zero                   ? fmt::format("from 0: {:+}", v.absolute_change)
                     : judged && v.reference > 0 ? trend_percent(v.change)
                                                 : "",
                     v.p_value ? fmt::format("{:.2g}", *v.p_value) : "", flag});
    }
    if (markdown) {
      table.render_markdown(out);
    } else {
      table.render_text(out);
    }
    for (const auto& e : s.entries) {
      if (e.verdict.flag == results::trend_flag::regression || e.verdict.flag == results::trend_flag::improvement) {
        out << (markdown ? "\n- " : "") << trend_change_line(s, e) << '\n';
      }
    }
  }
}

int execute(const trend_command_arguments& a) {
  const results::results_store store(results::database_path(a.selection.database));
  const auto series = results::build_trends(store, trend_query_of(a.selection), trend_options_of(a.selection));
  std::size_t regressions = 0;
  for (const auto& s : series) regressions += results::has_recent_regression(s, a.recent) ? 1 : 0;
  std::ostringstream text;
  if (a.format == "json") {
    text << core::json_text(results::trends_json(series), 2) << '\n';
  } else {
    write_trend_tables(series, a.format == "markdown", text);
    text << fmt::format("\n{} case(s) followed; {} with a regression found on the newest {} run(s)\n", series.size(),
                        regressions, a.recent == 0 ? std::string("(all)") : std::to_string(a.recent));
  }
  write_text_output(a.output, text.str());
  return regressions > 0 ? exit_failure : exit_ok;
}

}  // namespace

void add_trend_selection(CLI::App& command, trend_arguments& a) {
  command.add_option("--benchmark", a.benchmark, "Cases of this benchmark");
  add_run_filter_options(command, a.filter);
  command.add_option("--device", a.device, "Cases on this device");
  command.add_option("--param", a.params, "Cases with this parameter value, NAME=VALUE (repeatable)");
  command.add_option("--alpha", a.options.alpha, "Significance level of the U test")
      ->check(CLI::Range(1e-9, 0.5))
      ->capture_default_str();
  command
      .add_option("--min-difference", a.min_difference, "Changes smaller than this are never flagged (e.g. 2% or 0.02)")
      ->capture_default_str();
  command
      .add_option("--min-history", a.options.min_history, "Runs before the first of a history is judged (at least 3)")
      ->check(CLI::Range(3, 1000))
      ->capture_default_str();
  command.add_option("--window", a.options.window, "At most this many earlier runs of a level form the reference")
      ->check(CLI::Range(3, 100000))
      ->capture_default_str();
}

results::trend_query trend_query_of(const trend_arguments& a) {
  results::trend_query query;
  query.metric = a.metric;
  query.filter = run_filter_of(a.filter);
  query.filter.benchmark = a.benchmark;
  query.params = results::parse_tags(a.params, "--param");
  query.device = a.device;
  return query;
}

results::trend_options trend_options_of(const trend_arguments& a) {
  auto options = a.options;
  options.min_difference = parse_min_difference(a.min_difference);
  return options;
}

command_action add_trend_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("trend",
                         "A metric's value over the stored runs in time order, with significant changes flagged "
                         "(exit 1 on a regression among the newest runs)");
  auto a = std::make_shared<trend_command_arguments>();
  command->add_option("metric", a->selection.metric, "The metric followed (bandwidth, tflops, output_throughput ...)")
      ->required();
  add_database_option(*command, a->selection.database);
  add_trend_selection(*command, a->selection);
  command
      ->add_option("--recent", a->recent,
                   "Exit 1 when a regression is found on one of each case's newest N runs (0: anywhere)")
      // An unsigned option would take -1 as 18446744073709551615.
      ->check(CLI::Validator(
          [](const std::string& value) -> std::string {
            return !value.empty() && value.find_first_not_of("0123456789") == std::string::npos
                       ? std::string()
                       : "'" + value + "' is not a count of runs (0, 1, 2 ...)";
          },
          "N"))
      ->capture_default_str();
  command->add_option("--format", a->format, "console, markdown or json")
      ->check(CLI::IsMember({"console", "markdown", "json"}))
      ->capture_default_str();
  command->add_option("-o,--output", a->output, "Write to this file ('-' = stdout)")->capture_default_str();
  return [a] { return execute(*a); };
}

}  // namespace ironbench::cli
