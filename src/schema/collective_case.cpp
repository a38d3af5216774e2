#include "schema/collective_case.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ironbench::schema {

core::case_result collective_case(const collective_case_fields& f) {
  core::case_result c;
  c.benchmark = "collectives";
  c.device = f.ranks > 0 ? fmt::format("{} ranks", f.ranks) : std::string("unknown ranks");
  c.params.set("collective", f.collective);
  c.params.set("dtype", f.dtype);
  c.params.set("op", f.op);
  c.params.set("root", f.root);
  c.params.set("size", static_cast<std::int64_t>(f.size));
  c.params.set("placement", std::string(f.in_place ? "in-place" : "out-of-place"));
  c.params.set("ranks", std::int64_t{f.ranks});
  c.param_units["size"] = "B";
  if (!f.skipped.empty()) {
    c.status = core::case_status::skipped;
    c.reason = f.skipped;
    return c;
  }
  c.timing = f.timing;
  c.metrics.push_back({"time_us", f.time_us, "us", f.time_description});
  c.metrics.push_back({"algbw", f.algbw_gbs, "GB/s", "algorithm bytes / time (nccl-tests algbw)"});
  c.metrics.push_back({"busbw", f.busbw_gbs, "GB/s", "algbw x bus factor (nccl-tests busbw)"});
  c.metrics.insert(c.metrics.end(), f.busbw_spread.begin(), f.busbw_spread.end());
  c.metrics.push_back({"wrong", f.wrong, "elements", "wrong output elements over every rank (-1: not checked)"});
  c.notes["count"] = std::to_string(f.count);
  if (f.wrong > 0) {
    c.status = core::case_status::invalid;
    // A count prints whole ("#wrong = 1000000"); anything else as it came.
    c.reason = std::floor(f.wrong) == f.wrong ? fmt::format("#wrong = {:.0f}", f.wrong)
                                              : fmt::format("#wrong = {:g}", f.wrong);
  }
  return c;
}

}  // namespace ironbench::schema
