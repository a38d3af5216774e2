// libFuzzer target of the babelstream importer: BabelStream's CSV and console output.
// See importer_fuzz.hpp for what counts as a finding. A valid case's mean bandwidth (bytes moved
// / average time) must not exceed its best (bytes moved / fastest time).
#include "importer_fuzz.hpp"

namespace {

void check_bandwidths(const ironbench::core::case_result& c) {
  using ironbench::fuzz::metric_of;
  // CSV prints its times to 6 significant digits, the console to 5 decimals (a fast kernel's
  // minimum may be rounded by half): the CSV's rows are held to it.
  const auto from = c.notes.find("imported_from");
  const auto* mean = c.find_metric("bandwidth");
  const auto best = metric_of(c, "bandwidth_best");
  if (from == c.notes.end() || from->second.find("CSV") == std::string::npos || mean == nullptr || !best) return;
  if (mean->description.find("average time") == std::string::npos) return;  // not from the runtimes
  // Looser than the importer: its runtimes ordered within 1e-5, its best within 0.1 % of bytes / fastest time.
  if (!ironbench::fuzz::at_most(mean->value, *best, 0.05, 1e-6)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("babelstream", data, size, check_bandwidths);
  return 0;
}
