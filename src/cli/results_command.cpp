// ironbench results list|show|export|delete|import: the runs kept in the results database.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "core/error.hpp"
#include "report/output.hpp"
#include "report/text_table.hpp"
#include "results/baselines.hpp"
#include "results/results_store.hpp"
#include "results/run_gathering.hpp"

namespace ironbench::cli {
namespace {

struct results_arguments {
  std::string database;
  std::string benchmark, host, since, until;
  std::vector<std::string> tags;
  std::size_t limit = 0;
  std::vector<std::int64_t> ids;
  std::string format = "console";
  std::string output = "-";
  std::vector<std::string> sources;
};

results::store_location database_of(const results_arguments& a) { return results::database_path(a.database); }

results::run_filter filter_of(const results_arguments& a) {
  results::run_filter filter;
  filter.benchmark = a.benchmark;
  filter.host = a.host;
  filter.since = a.since;
  filter.until = a.until;
  filter.limit = a.limit;
  filter.tags = results::parse_tags(a.tags, "--tag");
  return filter;
}

std::string join(const std::vector<std::string>& items) { return fmt::format("{}", fmt::join(items, ",")); }

int list_runs(const results_arguments& a) {
  const results::results_store store(database_of(a));
  const auto runs = store.list(filter_of(a));
  report::text_table table;
  for (const char* column : {"id", "uuid", "start (UTC)", "host", "command", "status", "cases"})
    table.add_column(column);
  table.add_column("benchmarks", report::text_table::align::left);
  table.add_column("tags", report::text_table::align::left);
  for (const auto& r : runs) {
    std::vector<std::string> tags;
    for (const auto& [key, value] : r.tags) tags.push_back(key + "=" + value);
    table.add_row({std::to_string(r.id), r.uuid, r.start_time, r.host, r.command, r.status,
                   std::to_string(r.case_count), join(r.benchmarks), join(tags)});
  }
  if (a.format == "markdown") {
    table.render_markdown(std::cout);
  } else {
    table.render_text(std::cout);
  }
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

int import_runs(const results_arguments& a) {
  // Each run is stored as soon as it is read (one run in memory at a time); the target is opened
  // on the first run to store, so a refused source alone creates nothing.
  std::unique_ptr<results::results_store> store;
  const auto location = database_of(a);
  const auto summary = results::import_sources(
      {a.sources.begin(), a.sources.end()},
      [&]() -> results::results_store& {
        if (!store) store = std::make_unique<results::results_store>(location, results::store_access::write);
        return *store;
      },
      [](const std::string& message) { std::cerr << "ironbench: error: " << message << '\n'; });
  std::cout << fmt::format("{} added, {} already present in {}\n", summary.counts.added, summary.counts.present,
                           store ? store->path().string() : location.display());
  if (!summary.skipped.empty()) {
    std::cout << fmt::format("skipped {} JSON file(s) that are not ironbench runs: {}\n", summary.skipped.size(),
                             join(summary.skipped));
  }
  for (const auto& note : summary.passed_over) std::cout << "passed over " << note << '\n';
  return summary.refused.empty() ? exit_ok : exit_usage;
}

int list_baselines() {
  report::text_table table;
  for (const char* column : {"name", "cases", "title", "source"}) {
    table.add_column(
        column, column == std::string("cases") ? report::text_table::align::right : report::text_table::align::left);
  }
  const auto baselines = results::list_baselines();
  for (const auto& b : baselines) table.add_row({"ref:" + b.name, std::to_string(b.cases), b.title, b.source_text});
  table.render_text(std::cout);
  std::cout << fmt::format("{} published baselines (docs/baselines.md); compare with: ironbench compare RUN ref:NAME\n",
                           baselines.size());
  return exit_ok;
}

void add_database_option(CLI::App& command, results_arguments& a) { cli::add_database_option(command, a.database); }

}  // namespace

command_action add_results_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("results", "List, show, export, delete and import stored runs; list published baselines");
  command->require_subcommand(1);
  auto a = std::make_shared<results_arguments>();
  auto action = std::make_shared<command_action>();

  auto* list = command->add_subcommand("list", "Stored runs, newest first");
  add_database_option(*list, *a);
  list->add_option("--benchmark", a->benchmark, "Runs with cases of this benchmark");
  list->add_option("--tag", a->tags, "Runs carrying KEY=VALUE (repeatable: all must match)");
  list->add_option("--host", a->host, "Runs measured on this host");
  list->add_option("--since", a->since, "Runs started on or after this date (YYYY-MM-DD[THH:MM:SSZ], UTC)");
  list->add_option("--until", a->until, "Runs started before this date-time, or on or before this date");
  list->add_option("--limit", a->limit, "At most this many runs");
  list->add_option("--format", a->format, "console or markdown")->check(CLI::IsMember({"console", "markdown"}));
  list->callback([a, action] { *action = [a] { return list_runs(*a); }; });

  auto* show = command->add_subcommand("show", "One or more runs in full");
  add_database_option(*show, *a);
  show->add_option("ids", a->ids, "Run ids (see `results list`)")->required();
  show->add_option("--format", a->format, "console, json, csv or markdown")->capture_default_str();
  show->callback([a, action] { *action = [a] { return show_runs(*a); }; });

  auto* exported = command->add_subcommand("export", "Write runs as JSON (or CSV, Markdown) files");
  add_database_option(*exported, *a);
  exported->add_option("ids", a->ids, "Run ids")->required();
  exported->add_option("--format", a->format, "json (default), csv or markdown");
  exported->add_option("-o,--output", a->output, "File, or folder for one file per run ('-' = stdout)")
      ->capture_default_str();
  exported->callback([a, action] { *action = [a] { return export_runs(*a); }; });

  auto* erase = command->add_subcommand("delete", "Delete runs from the database (their JSON files stay)");
  add_database_option(*erase, *a);
  erase->add_option("ids", a->ids, "Run ids")->required();
  erase->callback([a, action] { *action = [a] { return delete_runs(*a); }; });

  auto* gather = command->add_subcommand(
      "import",
      "Add runs written elsewhere (ironbench run JSON files, folders of them, other results databases), "
      "each once (other tools' outputs: `ironbench import FORMAT FILE`)");
  add_database_option(*gather, *a);
  gather->add_option("sources", a->sources, "Run JSON files, folders (every *.json under them), results databases")
      ->required();
  gather->callback([a, action] { *action = [a] { return import_runs(*a); }; });

  auto* baselines = command->add_subcommand("baselines", "The published reference results (ref:NAME)");
  baselines->callback([action] { *action = [] { return list_baselines(); }; });

  return [action] { return (*action)(); };
}

}  // namespace ironbench::cli
