#include "report/stored_runs_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "report/text_table.hpp"

namespace ironbench::report {

void write_stored_runs(const std::vector<results::stored_run>& runs, bool markdown, std::ostream& out) {
  text_table table;
  for (const char* column : {"id", "uuid", "start (UTC)", "host", "command", "status", "cases"})
    table.add_column(column);
  table.add_column("benchmarks", text_table::align::left);
  table.add_column("tags", text_table::align::left);
  for (const auto& r : runs) {
    std::vector<std::string> tags;
    for (const auto& [key, value] : r.tags) tags.push_back(key + "=" + value);
    table.add_row({std::to_string(r.id), r.uuid, r.start_time, r.host, r.command, r.status,
                   std::to_string(r.case_count), fmt::format("{}", fmt::join(r.benchmarks, ",")),
                   fmt::format("{}", fmt::join(tags, ","))});
  }
  if (markdown) {
    table.render_markdown(out);
  } else {
    table.render_text(out);
  }
}

void write_baselines_table(const std::vector<results::baseline_info>& baselines, std::ostream& out) {
  text_table table;
  for (const char* column : {"name", "cases", "title", "source"}) {
    table.add_column(column, column == std::string("cases") ? text_table::align::right : text_table::align::left);
  }
  for (const auto& b : baselines) table.add_row({"ref:" + b.name, std::to_string(b.cases), b.title, b.source_text});
  table.render_text(out);
}

}  // namespace ironbench::report
