// ironbench compare A B [C ...]: runs, files, tag selectors or published baselines side by
// side, with a significance test per case and a verdict.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/side_selection.hpp"
#include "core/error.hpp"
#include "report/comparison_table.hpp"
#include "report/environment_table.hpp"
#include "report/html_report.hpp"
#include "report/text_table.hpp"

namespace ironbench::cli {
namespace {

struct compare_arguments {
  std::vector<std::string> sides;
  std::string database;
  std::string format = "console";
  std::string output = "-";
  std::string min_difference = "2%";
  std::vector<std::string> prices;
  bool fail_on_slower = false;
  std::vector<std::string> align_on;
  results::comparison_options options;
};

void write_cost_text(const std::vector<results::cost_row>& rows, bool markdown, std::ostream& out) {
  if (rows.empty()) return;
  report::text_table table;
  for (const char* column : {"side", "benchmark", "case", "metric"})
    table.add_column(column, report::text_table::align::left);
  for (const char* column : {"value", "USD/h", "value per USD/h", "USD per 1M tokens"}) table.add_column(column);
  for (const auto& r : rows) {
    table.add_row({r.side, r.benchmark, r.key, r.metric, report::format_value(r.value),
                   fmt::format("{:.2f}", r.node_usd_per_hour), report::format_value(r.value_per_usd_hour),
                   r.usd_per_million_tokens ? fmt::format("{:.4f}", *r.usd_per_million_tokens) : "-"});
  }
  out << (markdown ? "\n## Cost\n\n" : "\ncost:\n");
  if (markdown) {
    table.render_markdown(out);
  } else {
    table.render_text(out);
  }
}

int execute(compare_arguments& a) {
  a.options.min_difference = parse_min_difference(a.min_difference);
  for (const auto& name : a.align_on) std::erase(a.options.collapsed_params, name);
  const auto prices = parse_prices(a.prices);
  const auto sides = select_sides(a.sides, a.database);
  const auto comparison = results::compare_sides(sides, a.options);
  const auto cost = prices.empty() ? std::vector<results::cost_row>{} : results::cost_rows(sides, prices);

  std::ostringstream text;
  if (a.format == "html") {
    report::html_report_input input;
    input.title = "ironbench comparison: " + comparison.labels[0];
    for (std::size_t s = 1; s < comparison.labels.size(); ++s) input.title += " vs " + comparison.labels[s];
    input.sides = sides;
    input.comparison = comparison;
    input.cost = cost;
    report::write_html_report(input, text);
  } else if (a.format == "markdown") {
    report::write_environment_difference(sides, true, text);
    report::write_comparison_markdown(comparison, text);
    write_cost_text(cost, true, text);
  } else {
    report::write_environment_difference(sides, false, text);
    report::write_comparison_console(comparison, text);
    write_cost_text(cost, false, text);
  }
  write_text_output(a.output, text.str());
  if (a.fail_on_slower) {
    for (const auto& row : comparison.cases) {
      for (auto v : row.verdicts) {
        if (v == results::verdict::slower) return exit_failure;
      }
    }
  }
  return exit_ok;
}

}  // namespace

command_action add_compare_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "compare",
      "Compare runs case by case: A B [C ...] as run ids, result files, KEY=VALUE tag selectors or ref:NAME");
  auto a = std::make_shared<compare_arguments>();
  command->add_option("sides", a->sides, "The baseline first, then the runs compared with it")
      ->required()
      ->expected(2, -1);
  add_database_option(*command, a->database);
  command->add_option("--format", a->format, "console, markdown or html")
      ->check(CLI::IsMember({"console", "markdown", "html"}))
      ->capture_default_str();
  command->add_option("-o,--output", a->output, "Write the comparison to this file ('-' = stdout)")
      ->capture_default_str();
  command->add_option("--metric", a->options.metric, "Compare this metric instead of each benchmark's main one");
  command->add_option("--alpha", a->options.alpha, "Significance level of the U test")
      ->check(CLI::Range(1e-6, 0.5))
      ->capture_default_str();
  command->add_option("--confidence", a->options.confidence, "Confidence of the speedup interval")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  command
      ->add_option("--min-difference", a->min_difference,
                   "Significant differences smaller than this still count as same (e.g. 2% or 0.02)")
      ->capture_default_str();
  command->add_flag("--per-device", a->options.per_device, "Align cases by device too (default: the best device)");
  command->add_option("--ignore-param", a->options.ignored_params,
                      "Leave this parameter out of the alignment (repeatable)");
  command->add_option("--align-on", a->align_on,
                      "Also align on this parameter, e.g. provider (default: the best provider)");
  command->add_option("--price-per-hour", a->prices,
                      "USD per node-hour (2.50) or per GPU-hour (2.50/gpu): one for all sides, or one per side");
  command->add_flag("--fail-on-slower", a->fail_on_slower, "Exit with 1 when any case is slower than the baseline");
  return [a] { return execute(*a); };
}

}  // namespace ironbench::cli
