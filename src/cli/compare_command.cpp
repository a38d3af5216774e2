// ironbench compare A B [C ...]: runs, files, tag selectors or published baselines side by
// side, with a significance test per case and a verdict.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/error.hpp"
#include "report/comparison_table.hpp"
#include "results/results_store.hpp"
#include "results/run_selector.hpp"

namespace ironbench::cli {
namespace {

struct compare_arguments {
  std::vector<std::string> sides;
  std::string database;
  std::string format = "console";
  std::string output = "-";
  std::string min_difference = "2%";
  bool fail_on_slower = false;
  results::comparison_options options;
};

double fraction_of(const std::string& text) {
  try {
    std::size_t used = 0;
    double value = std::stod(text, &used);
    const auto rest = text.substr(used);
    if (rest == "%") value /= 100;
    else if (!rest.empty()) throw std::invalid_argument(rest);
    if (value < 0 || value >= 1) throw std::out_of_range(text);
    return value;
  } catch (const std::exception&) {
    throw usage_error(fmt::format("--min-difference '{}' is not a fraction in [0, 1) or a percentage like 2%", text));
  }
}

int execute(compare_arguments& a) {
  a.options.min_difference = fraction_of(a.min_difference);
  std::unique_ptr<results::results_store> store;
  auto open_store = [&]() -> results::results_store& {
    if (!store) {
      store = std::make_unique<results::results_store>(a.database.empty() ? results::default_database_path()
                                                                          : std::filesystem::path(a.database));
    }
    return *store;
  };
  std::vector<results::comparison_side> sides;
  for (const auto& text : a.sides) sides.push_back(results::select_side(text, open_store));
  const auto comparison = results::compare_sides(sides, a.options);

  std::ofstream file;
  if (a.output != "-") {
    file.open(a.output);
    if (!file) throw usage_error(fmt::format("cannot write --output {}", a.output));
  }
  std::ostream& out = a.output == "-" ? std::cout : file;
  if (a.format == "markdown") {
    report::write_comparison_markdown(comparison, out);
  } else {
    report::write_comparison_console(comparison, out);
  }
  out.flush();
  if (!out) throw error(fmt::format("writing {} failed", a.output));
  if (a.output != "-") std::cerr << "written: " << a.output << '\n';
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
      "compare", "Compare runs case by case: A B [C ...] as run ids, result files, KEY=VALUE tag selectors or ref:NAME");
  auto a = std::make_shared<compare_arguments>();
  command->add_option("sides", a->sides, "The baseline first, then the runs compared with it")->required()->expected(2, -1);
  command->add_option("--db", a->database, "Results database (default: $IRONBENCH_DB or ~/.local/share/ironbench/results.db)");
  command->add_option("--format", a->format, "console or markdown")
      ->check(CLI::IsMember({"console", "markdown"}))
      ->capture_default_str();
  command->add_option("-o,--output", a->output, "Write the comparison to this file ('-' = stdout)")->capture_default_str();
  command->add_option("--metric", a->options.metric, "Compare this metric instead of each benchmark's main one");
  command->add_option("--alpha", a->options.alpha, "Significance level of the U test")
      ->check(CLI::Range(1e-6, 0.5))
      ->capture_default_str();
  command->add_option("--confidence", a->options.confidence, "Confidence of the speedup interval")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  command->add_option("--min-difference", a->min_difference,
                      "Significant differences smaller than this still count as same (e.g. 2% or 0.02)")
      ->capture_default_str();
  command->add_flag("--per-device", a->options.per_device, "Align cases by device too (default: the best device)");
  command->add_option("--ignore-param", a->options.ignored_params, "Leave this parameter out of the alignment (repeatable)");
  command->add_flag("--fail-on-slower", a->fail_on_slower, "Exit with 1 when any case is slower than the baseline");
  return [a] { return execute(*a); };
}

}  // namespace ironbench::cli
