#include "cli/progress_printer.hpp"

#include <fmt/format.h>

#include "core/units.hpp"
#include "report/case_tables.hpp"

namespace ironbench::cli {

core::progress_callback progress_printer(std::ostream& out, bool quiet) {
  if (quiet) return {};
  return
      [&out](std::size_t index, std::size_t total, const core::planned_case& planned, const core::case_result* result) {
        const auto width = std::to_string(total).size();
        if (result == nullptr) {
          out << fmt::format("[{:>{}}/{}] {} on {} {} ...", index + 1, width, total, planned.bench->name(),
                             planned.device->id, planned.params.label())
              << std::flush;
          return;
        }
        std::string headline;
        if (!result->metrics.empty()) {
          const auto& m = result->metrics.front();
          headline = fmt::format(" {} {}", format_number(m.value), m.unit);
        }
        out << headline << ' ' << report::status_cell(*result) << std::endl;
      };
}

}  // namespace ironbench::cli
