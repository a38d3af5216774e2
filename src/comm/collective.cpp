#include "comm/collective.hpp"

#include "schema/collective_kinds.hpp"

namespace ironbench::comm {

double bus_factor(collective c, int ranks) { return schema::kind_of(c).bus_factor(ranks); }

call_shape shape_of(collective c, std::size_t size_bytes, element_type t, int ranks) {
  const auto& kind = schema::kind_of(c);
  const std::size_t bytes = element_size(t);
  call_shape s = kind.shape(size_bytes / bytes, bytes, ranks);
  s.bus_factor = kind.bus_factor(ranks);
  return s;
}

}  // namespace ironbench::comm
