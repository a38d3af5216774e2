#include "comm/collective.hpp"

namespace ironbench::comm {

double bus_factor(collective c, int ranks) {
  const double n = ranks;
  switch (c) {
    case collective::all_reduce: return 2.0 * (n - 1) / n;
    case collective::all_gather:
    case collective::reduce_scatter:
    case collective::alltoall: return (n - 1) / n;
    case collective::broadcast:
    case collective::reduce:
    case collective::sendrecv: return 1.0;
  }
  return 1.0;
}

call_shape shape_of(collective c, std::size_t size_bytes, element_type t, int ranks) {
  const std::size_t n = static_cast<std::size_t>(ranks);
  const std::size_t bytes = element_size(t);
  call_shape s;
  s.count = size_bytes / bytes;
  s.bus_factor = bus_factor(c, ranks);
  switch (c) {
    case collective::all_reduce:
    case collective::broadcast:
    case collective::reduce:
    case collective::sendrecv:
      s.send_count = s.count;
      s.recv_count = s.count;
      s.algorithm_bytes = static_cast<double>(s.count * bytes);
      break;
    case collective::all_gather:  // count_per_rank x n
      s.count = s.count / n * n;
      s.send_count = s.count / n;
      s.recv_count = s.count;
      s.algorithm_bytes = static_cast<double>(s.send_count * n * bytes);
      break;
    case collective::reduce_scatter:  // recvcount x n
      s.count = s.count / n * n;
      s.send_count = s.count;
      s.recv_count = s.count / n;
      s.algorithm_bytes = static_cast<double>(s.recv_count * n * bytes);
      break;
    case collective::alltoall:  // count_per_peer x n
      s.count = s.count / n * n;
      s.send_count = s.count;
      s.recv_count = s.count;
      s.algorithm_bytes = static_cast<double>(s.count / n * n * bytes);
      break;
  }
  switch (c) {
    case collective::all_gather: s.param_count = s.send_count; break;
    case collective::reduce_scatter: s.param_count = s.recv_count; break;
    case collective::alltoall: s.param_count = s.count / n; break;
    default: s.param_count = s.count; break;
  }
  return s;
}

}  // namespace ironbench::comm
