// ironbench list: the benchmarks of this build, their axes and default values per device.
#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "benchmarks/builtin.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "core/error.hpp"
#include "core/run_estimate.hpp"
#include "core/runner.hpp"
#include "report/text_table.hpp"
#include "session/live_host.hpp"

namespace ironbench::cli {
namespace {

std::string default_values(const core::axis& a) {
  std::vector<std::string> values;
  for (const auto& v : a.values) values.push_back(core::display_value(a, v));
  return values.empty() ? "(none: give with --axis)" : fmt::format("{}", fmt::join(values, ","));
}

void print_benchmark(const core::benchmark& b, const std::vector<core::device_info>& devices) {
  std::cout << b.name() << (b.in_default_suite() ? "" : " (not in the default suite)") << "\n  " << b.summary() << '\n';
  for (const auto& d : devices) {
    const auto reason = b.unsupported_reason(d);
    if (!reason.empty()) {
      std::cout << fmt::format("  on {}: not available ({})\n", d.id, reason);
      continue;
    }
    std::cout << fmt::format("  axes on {}:\n", d.id);
    report::text_table table;
    table.add_column("axis", report::text_table::align::left);
    table.add_column("default", report::text_table::align::left);
    table.add_column("meaning", report::text_table::align::left);
    for (const auto& a : b.axes(d)) {
      auto meaning = a.description;
      if (!a.zip_group.empty()) meaning += fmt::format(" [advances with the other '{}' axes]", a.zip_group);
      if (!a.choices.empty()) meaning += fmt::format(" [one of {}]", fmt::join(a.choices, ","));
      table.add_row({a.name, default_values(a), meaning});
    }
    std::ostringstream text;
    table.render_text(text);
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) std::cout << "    " << line << '\n';
    if (const auto first_look = b.first_look_summary(d); !first_look.empty() && b.in_default_suite()) {
      std::cout << fmt::format("    default suite: {}\n", first_look);
    }
  }
  std::cout << '\n';
}

}  // namespace

command_action add_list_command(CLI::App& app) {
  auto* command = app.add_subcommand("list", "List the benchmarks, their axes and default values");
  return [command] {
    (void)command;
    core::registry registry;
    benchmarks::register_builtin_benchmarks(registry);
    const auto host = session::detect_live_host();
    for (const auto* b : registry.all()) print_benchmark(*b, host.devices.devices);
    for (const auto& note : host.devices.notes) std::cout << "note: " << note << '\n';
    core::run_options suite;
    suite.schedule = core::schedule_mode::concurrent;
    try {
      const auto estimate = core::estimate_run(core::plan_run(registry, host.devices.devices, suite), suite);
      std::cout << "The default suite here (ironbench run): " << core::describe(estimate) << '\n';
    } catch (const usage_error& e) {
      std::cout << "The default suite cannot run here as it is: " << e.what() << '\n';
    }
    std::cout << "Override an axis with --axis NAME=VALUES, e.g. --axis size=1M:8G:x2 "
                 "or --axis gemm:M=4096,8192\n";
    return exit_ok;
  };
}

}  // namespace ironbench::cli
