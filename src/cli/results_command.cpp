// ironbench results list|show|export|delete|gather|baselines: the runs kept in the results database
// (`results import`: gather's former name, still accepted).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "report/output.hpp"
#include "report/stored_runs_table.hpp"
#include "results/baselines.hpp"
#include "results/results_store.hpp"
#include "results/store_gathering.hpp"

namespace ironbench::cli {
namespace {

struct results_arguments {
  std::string database;
  std::string benchmark;
  run_filter_arguments filter;
  std::size_t limit = 0;
  std::vector<std::int64_t> ids;
  std::string format = "console";
  std::string output = "-";
  std::vector<std::string> sources;
};

results::store_location database_of(const results_arguments& a) { return results::database_path(a.database); }

results::run_filter filter_of(const results_arguments& a) {
  auto filter = run_filter_of(a.filter);
  filter.benchmark = a.benchmark;
  filter.limit = a.limit;
  return filter;
}

std::string join(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, ",")); }

int list_runs(const results_arguments& a) {
  const results::results_store store(database_of(a));
  const auto runs = store.list(filter_of(a));
  report::write_stored_runs(runs, a.format == "markdown", std::cout);
  std::cout << fmt::format("{} run(s) in {}\n", runs.size(), store.path().string());
  return exit_ok;
}

report::output_format format_of(const std::string& name) {
  if (name == "json") return report::output_format::json;
  if (name == "csv") return report::output_format::csv;
  if (name == "markdown" || name == "md") return report::output_format::markdown;
  if (name == "console") return report::output_format::console;
  throw usage_error(fmt::format("unknown --format '{}' (known: console, json, csv, markdown)", name));
}

int show_runs(const results_arguments& a) {
  const results::results_store store(database_of(a));
  const auto format = format_of(a.format);
  for (const auto id : a.ids) {
    const auto run = store.load(id);
    if (format == report::output_format::console) {
      std::cout << fmt::format("run {} ({})", id, run.uuid);
      for (const auto& [key, value] : run.tags) std::cout << fmt::format(" {}={}", key, value);
      std::cout << '\n';
    }
    report::write_report(run, format, std::cout);
  }
  return exit_ok;
}

int export_runs(const results_arguments& a) {
  const results::results_store store(database_of(a));
  const auto format = format_of(a.format == "console" ? "json" : a.format);
  if (a.ids.size() != 1 && a.output != "-" && !std::filesystem::is_directory(a.output)) {
    throw usage_error("exporting several runs needs --output DIR (an existing folder): one file per run");
  }
  const char* extension = format == report::output_format::csv        ? "csv"
                          : format == report::output_format::markdown ? "md"
                                                                      : "json";
  for (const auto id : a.ids) {
    const auto run = store.load(id);
    std::string path = a.output;
    if (std::filesystem::is_directory(a.output)) {
      path = (std::filesystem::path(a.output) / fmt::format("run-{}.{}", id, extension)).string();
    }
    report::output_target target{format, path};
    report::check_output_target(target);
    report::write_output(run, target, std::cout);
    if (path != "-") std::cerr << fmt::format("exported run {} to {}\n", id, path);
  }
  return exit_ok;
}

int delete_runs(const results_arguments& a) {
  results::results_store store(database_of(a));
  std::vector<std::int64_t> missing;
  for (const auto id : a.ids) {
    if (store.remove(id)) {
      std::cout << fmt::format("deleted run {}\n", id);
    } else {
      missing.push_back(id);
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> names;
    for (auto id : missing) names.push_back(std::to_string(id));
    throw usage_error(fmt::format("no run {} in {}", join(names), store.path().string()));
  }
  return exit_ok;
}

int gather_sources(const results_arguments& a) {
  const auto outcome =
      results::gather_into(database_of(a), {a.sources.begin(), a.sources.end()},
                           [](const std::string& message) { std::cerr << "ironbench: error: " << message << '\n'; });
  for (const auto& line : results::gather_lines(outcome)) std::cout << line << '\n';
  return outcome.summary.refused.empty() ? exit_ok : exit_usage;
}

// `results import`, gather's name until `ironbench import` (another tool's output) and it were
// told apart; still accepted for scripts that use it.
int gather_sources_by_old_name(const results_arguments& a) {
  std::cerr << "ironbench: note: `results import` is now `results gather` (`ironbench import FORMAT FILE` reads "
               "another tool's output)\n";
  return gather_sources(a);
}

int list_baselines() {
  const auto baselines = results::list_baselines();
  report::write_baselines_table(baselines, std::cout);
  std::cout << fmt::format("{} published baselines (docs/baselines.md); compare with: ironbench compare RUN ref:NAME\n",
                           baselines.size());
  return exit_ok;
}

}  // namespace

command_action add_results_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "results", "List, show, export and delete stored runs, gather runs from elsewhere; list published baselines");
  command->require_subcommand(1);
  auto a = std::make_shared<results_arguments>();
  auto action = std::make_shared<command_action>();
  // A subcommand of the store at --db whose action is `run`.
  const auto store_subcommand = [&](const std::string& name, const std::string& help,
                                    int (*run)(const results_arguments&)) {
    auto* sub = command->add_subcommand(name, help);
    add_database_option(*sub, a->database);
    sub->callback([a, action, run] { *action = [a, run] { return run(*a); }; });
    return sub;
  };

  auto* list = store_subcommand("list", "Stored runs, newest first", list_runs);
  list->add_option("--benchmark", a->benchmark, "Runs with cases of this benchmark");
  add_run_filter_options(*list, a->filter);
  list->add_option("--limit", a->limit, "At most this many runs");
  list->add_option("--format", a->format, "console or markdown")->check(CLI::IsMember({"console", "markdown"}));

  auto* show = store_subcommand("show", "One or more runs in full", show_runs);
  show->add_option("ids", a->ids, "Run ids (see `results list`)")->required();
  show->add_option("--format", a->format, "console, json, csv or markdown")->capture_default_str();

  auto* exported = store_subcommand("export", "Write runs as JSON (or CSV, Markdown) files", export_runs);
  exported->add_option("ids", a->ids, "Run ids")->required();
  exported->add_option("--format", a->format, "json (default), csv or markdown");
  exported->add_option("-o,--output", a->output, "File, or folder for one file per run ('-' = stdout)")
      ->capture_default_str();

  auto* erase = store_subcommand("delete", "Delete runs from the database (their JSON files stay)", delete_runs);
  erase->add_option("ids", a->ids, "Run ids")->required();

  const auto gather_help =
      "Add runs written elsewhere (ironbench run JSON files, folders of them, other results databases), each once "
      "(another tool's output: `ironbench import FORMAT FILE`)";
  for (const bool old_name : {false, true}) {
    auto* gather = old_name ? store_subcommand("import", "", gather_sources_by_old_name)
                            : store_subcommand("gather", gather_help, gather_sources);
    gather->add_option("sources", a->sources, "Run JSON files, folders (every *.json under them), results databases")
        ->required();
    if (old_name) gather->group("");  // not listed in the help
  }

  auto* baselines = command->add_subcommand("baselines", "The published reference results (ref:NAME)");
  baselines->callback([action] { *action = [] { return list_baselines(); }; });

  return [action] { return (*action)(); };
}

}  // namespace ironbench::cli
