#include "cli/option_groups.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"

namespace ironbench::cli {

void add_output_options(CLI::App& command, report::output_options& o) {
  command.add_option("--json", o.json_path, "Also write the run as JSON to PATH ('-' = stdout)");
  command.add_option("--csv", o.csv_path, "Also write one CSV row per case to PATH ('-' = stdout)");
  command.add_option("--md", o.markdown_path, "Also write Markdown tables to PATH ('-' = stdout)");
  command.add_option("--results-dir", o.results_dir, "Directory where every run is saved as JSON")
      ->capture_default_str();
  add_database_option(command, o.database);
  command.add_option("--tag", o.tags, "Label the run KEY=VALUE, e.g. --tag env=vm --tag gpu=mi300x (repeatable)");
  command.add_flag("--no-save", o.no_save, "Neither save the run under --results-dir nor store it in the database");
}

void add_database_option(CLI::App& command, std::string& database) {
  command.add_option("--db", database,
                     "Results store: a SQLite file, or postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB "
                     "(default: $IRONBENCH_DB or ~/.local/share/ironbench/results.db)");
}

void add_run_filter_options(CLI::App& command, run_filter_arguments& filter) {
  command.add_option("--tag", filter.tags, "Runs carrying KEY=VALUE (repeatable: all must match)");
  command.add_option("--host", filter.host, "Runs measured on this host");
  command.add_option("--since", filter.since, "Runs started on or after this date (YYYY-MM-DD[THH:MM:SSZ], UTC)");
  command.add_option("--until", filter.until, "Runs started before this date-time, or on or before this date");
}

results::run_filter run_filter_of(const run_filter_arguments& filter) {
  results::run_filter f;
  f.host = filter.host;
  f.since = filter.since;
  f.until = filter.until;
  f.tags = results::parse_tags(filter.tags, "--tag");
  return f;
}

void add_quiet_flag(CLI::App& command, bool& quiet, const std::string& what) {
  command.add_flag("-q,--quiet", quiet, what);
}

void add_timeout_option(CLI::App& command, std::string& timeout, const std::string& help) {
  command.add_option("--timeout", timeout, help)->capture_default_str();
}

void add_rank_fault_option(CLI::App& command, std::string& fault) {
  command.add_option("--inject-fault", fault,
                     "Test the failure handling: hang@RANK (that rank stops) or exit@RANK (that rank dies) before "
                     "its first step");
}

void add_iteration_options(CLI::App& command, int& iterations, int& warmup_iterations,
                           const std::string& iterations_help, const std::string& warmup_help) {
  command.add_option("-n,--iters", iterations, iterations_help)->capture_default_str();
  command.add_option("-w,--warmup_iters", warmup_iterations, warmup_help)->capture_default_str();
}

double parse_min_difference(const std::string& text) {
  try {
    std::size_t used = 0;
    double value = std::stod(text, &used);
    const auto rest = text.substr(used);
    if (rest == "%") {
      value /= 100;
    } else if (!rest.empty()) {
      throw std::invalid_argument(rest);
    }
    if (!(value >= 0 && value < 1)) throw std::out_of_range(text);
    return value;
  } catch (const std::exception&) {
    throw usage_error(fmt::format("--min-difference '{}' is not a fraction in [0, 1) or a percentage like 2%", text));
  }
}

}  // namespace ironbench::cli
