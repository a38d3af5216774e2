// ironbench report RUN [RUN ...]: one self-contained HTML file for a run, or for several runs
// overlaid and compared.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/side_selection.hpp"
#include "cli/trend_selection.hpp"
#include "core/error.hpp"
#include "report/html_report.hpp"
#include "report/trend_page.hpp"

namespace ironbench::cli {
namespace {

struct report_arguments {
  std::vector<std::string> sides;
  std::string database;
  std::string output = "ironbench-report.html";
  std::string title;
  std::vector<std::string> prices;
  results::comparison_options options;
  trend_arguments trend;  ///< --trend METRIC: the history of the stored runs instead
};

int execute_trend(const report_arguments& a) {
  if (!a.sides.empty()) throw usage_error("report --trend selects runs with --tag, --benchmark, --since ...: no RUN");
  auto selection = a.trend;
  selection.database = a.database;
  const results::results_store store(results::database_path(a.database));
  const auto series = results::build_trends(store, trend_query_of(selection), trend_options_of(selection));
  std::ostringstream html;
  report::write_trend_html(series, a.title.empty() ? "ironbench trend: " + selection.metric : a.title, html);
  write_text_output(a.output, html.str());
  return exit_ok;
}

int execute(const report_arguments& a) {
  if (!a.trend.metric.empty()) return execute_trend(a);
  if (a.sides.empty())
    throw usage_error("report needs RUN ... (run ids, result files, tag selectors or ref:NAME), or --trend METRIC");
  const auto prices = parse_prices(a.prices);
  report::html_report_input input;
  input.sides = select_sides(a.sides, a.database);
  if (input.sides.size() > 1) input.comparison = results::compare_sides(input.sides, a.options);
  if (!prices.empty()) input.cost = results::cost_rows(input.sides, prices);
  input.title = a.title;
  if (input.title.empty()) {
    input.title = "ironbench report: " + input.sides.front().label;
    for (std::size_t s = 1; s < input.sides.size(); ++s) input.title += " vs " + input.sides[s].label;
  }
  std::ostringstream html;
  report::write_html_report(input, html);
  write_text_output(a.output, html.str());
  return exit_ok;
}

}  // namespace

command_action add_report_command(CLI::App& app) {
  auto* command = app.add_subcommand("report", "Write a self-contained HTML report of a run, or of several compared");
  auto a = std::make_shared<report_arguments>();
  command->add_option("runs", a->sides,
                      "Run ids, result files, KEY=VALUE tag selectors or ref:NAME (first = baseline)");
  add_database_option(*command, a->database);
  command->add_option("-o,--output", a->output, "HTML file to write ('-' = stdout)")->capture_default_str();
  command->add_option("--title", a->title, "Title of the report");
  command->add_option("--price-per-hour", a->prices,
                      "USD per node-hour (2.50) or per GPU-hour (2.50/gpu): one for all, or one per run");
  command->add_flag("--per-device", a->options.per_device, "Compare device by device");
  command->add_option("--trend", a->trend.metric,
                      "Instead of RUNs: this metric's history over the stored runs, changes marked (as `trend`)");
  add_trend_selection(*command, a->trend);
  return [a] { return execute(*a); };
}

}  // namespace ironbench::cli
