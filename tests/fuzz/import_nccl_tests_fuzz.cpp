// libFuzzer target of the nccl-tests importer: nccl-tests and rccl-tests output, printed or JSON (-J).
// See importer_fuzz.hpp for what counts as a finding. A valid case's busbw must be its algbw
// times its collective's bus factor for its ranks (nccl-tests' doc/PERFORMANCE.md; gather,
// scatter, alltoallv and hypercube (n-1)/n or 1, as versions differ), at most algbw x 2 (all_reduce)
// or x 1 with the ranks unknown, and its algbw its size / time.
#include "importer_fuzz.hpp"

#include "core/axis.hpp"

namespace {

void check_bandwidths(const ironbench::core::case_result& c) {
  using ironbench::fuzz::metric_of;
  const auto algbw = metric_of(c, "algbw"), busbw = metric_of(c, "busbw"), time_us = metric_of(c, "time_us");
  if (!algbw || !busbw || !c.params.contains("collective") || !c.params.contains("ranks")) return;
  const auto collective = ironbench::core::to_string(c.params.at("collective"));
  const auto ranks = c.params.integer("ranks");
  // Looser than the importer (2 % and 0.02 GB/s): only a check that did not run is a finding.
  const auto agrees = [&](double factor) { return ironbench::fuzz::near(*busbw, *algbw * factor, 0.03, 0.03); };
  if (ranks <= 0) {
    if (!ironbench::fuzz::at_most(*busbw, *algbw * (collective == "all_reduce" ? 2.0 : 1.0), 0.03, 0.03)) std::abort();
  } else {
    const double n = static_cast<double>(ranks);
    bool any = false;
    if (collective == "all_reduce") {
      any = agrees(2 * (n - 1) / n);
    } else if (collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall") {
      any = agrees((n - 1) / n);
    } else if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv") {
      any = agrees(1);
    } else {
      any = agrees((n - 1) / n) || agrees(1);
    }
    if (!any) std::abort();
  }
  if (time_us && *time_us > 0 && c.params.contains("size")) {
    const double size = static_cast<double>(c.params.integer("size"));
    if (!ironbench::fuzz::near(*algbw, size / *time_us / 1e3, 0.03, 0.02)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("nccl-tests", data, size, check_bandwidths);
  return 0;
}
