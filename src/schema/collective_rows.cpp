#include "schema/collective_rows.hpp"

namespace ironbench::schema {

bandwidth_summary summarize(const std::vector<sweep_row>& rows) {
  bandwidth_summary s;
  double sum = 0, sum_large = 0;
  std::size_t count = 0, count_large = 0;
  for (const auto& row : rows) {
    for (const auto* p : {&row.out_of_place, &row.in_place}) {
      if (!p->ran) continue;
      sum += p->busbw_gbs;
      ++count;
      if (row.bytes >= (std::size_t{1} << 20)) {
        sum_large += p->busbw_gbs;
        ++count_large;
      }
      if (p->busbw_gbs > s.peak_gbs) {
        s.peak_gbs = p->busbw_gbs;
        s.peak_bytes = row.bytes;
      }
      if (p->wrong > 0) s.wrong += p->wrong;
    }
  }
  s.average_gbs = count > 0 ? sum / static_cast<double>(count) : 0;
  s.average_from_1mib_gbs = count_large > 0 ? sum_large / static_cast<double>(count_large) : 0;
  return s;
}

}  // namespace ironbench::schema
