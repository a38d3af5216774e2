#include "report/environment_table.hpp"

#include "report/text_table.hpp"
#include "results/environment_difference.hpp"

namespace ironbench::report {

void write_environment_difference(const std::vector<results::comparison_side>& sides, bool markdown,
                                  std::ostream& out) {
  const auto facts = results::environment_difference(sides);
  if (facts.empty()) {
    out << (markdown ? "\nEnvironment: the same on every side.\n\n" : "environment: the same on every side\n\n");
    return;
  }
  text_table table;
  table.add_column("environment", text_table::align::left);
  for (const auto& side : sides) table.add_column(side.label, text_table::align::left);
  for (const auto& f : facts) {
    std::vector<std::string> row = {f.name};
    for (const auto& v : f.values) row.push_back(v.empty() ? "-" : v);
    table.add_row(std::move(row));
  }
  if (markdown) {
    out << "\n## Environment differences\n\n";
    table.render_markdown(out);
    out << "\n";
  } else {
    out << "environment differences:\n";
    table.render_text(out);
    out << "\n";
  }
}

}  // namespace ironbench::report
