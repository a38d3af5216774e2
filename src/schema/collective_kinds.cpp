#include "schema/collective_kinds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace ironbench::schema {
namespace {

// ---- sizes, as nccl-tests' *GetCollByteCount and *GetBw -------------------------------------

// all_reduce, broadcast, reduce, sendrecv: the size is the buffer.
call_shape whole_buffer_shape(std::size_t elements, std::size_t element_bytes, int) {
  call_shape s;
  s.count = elements;
  s.send_count = s.count;
  s.recv_count = s.count;
  s.algorithm_bytes = static_cast<double>(s.count * element_bytes);
  s.param_count = s.count;
  return s;
}

// all_gather: the size is the gathered output, count_per_rank x n.
call_shape gathered_shape(std::size_t elements, std::size_t element_bytes, int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  call_shape s;
  s.count = elements / n * n;
  s.send_count = s.count / n;
  s.recv_count = s.count;
  s.algorithm_bytes = static_cast<double>(s.send_count * n * element_bytes);
  s.param_count = s.send_count;
  return s;
}

// reduce_scatter: the size is each rank's input, recvcount x n.
call_shape scattered_shape(std::size_t elements, std::size_t element_bytes, int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  call_shape s;
  s.count = elements / n * n;
  s.send_count = s.count;
  s.recv_count = s.count / n;
  s.algorithm_bytes = static_cast<double>(s.recv_count * n * element_bytes);
  s.param_count = s.recv_count;
  return s;
}

// alltoall: the size is each rank's input, count_per_peer x n, and as much comes back.
call_shape exchanged_shape(std::size_t elements, std::size_t element_bytes, int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  call_shape s;
  s.count = elements / n * n;
  s.send_count = s.count;
  s.recv_count = s.count;
  s.algorithm_bytes = static_cast<double>(s.count / n * n * element_bytes);
  s.param_count = s.count / n;
  return s;
}

double all_reduce_factor(int ranks) {
  const double n = ranks;
  return 2.0 * (n - 1) / n;
}

double all_peers_factor(int ranks) {
  const double n = ranks;
  return (n - 1) / n;
}

double unit_factor(int) { return 1.0; }

// ---- inputs --------------------------------------------------------------------------------

// A reduction's inputs, per operator, so that no result overflows int8 or loses bits in bf16
// for up to 63 ranks: sum and avg -2..2 (period 5 in the index), prod +-1 (period 3), max and
// min -3..3 (period 7).
double reduction_input(reduce_op op, int rank, std::size_t index) {
  const auto r = static_cast<std::size_t>(rank);
  switch (op) {
    case reduce_op::sum: return static_cast<double>((r + 2 * index) % 5) - 2.0;
    // NCCL averages floats by multiplying each rank's value by 1/n (rounded) before summing,
    // so for n not a power of two partial sums round. As in nccl-tests, only two ranks
    // contribute, which keeps the error within the tolerance whatever the rank count.
    case reduce_op::avg: return rank < 2 ? static_cast<double>((r + 2 * index) % 5) - 2.0 : 0.0;
    case reduce_op::prod: return (r + index) % 3 == 0 ? -1.0 : 1.0;
    case reduce_op::max:
    case reduce_op::min: return static_cast<double>((3 * r + index) % 7) - 3.0;
  }
  return 0.0;
}

// The data-moving collectives' inputs: -30..30 by rank and position.
double moved_input(reduce_op, int rank, std::size_t index) {
  return static_cast<double>((static_cast<std::size_t>(rank) * 131 + index * 7) % 61) - 30.0;
}

constexpr std::size_t reduction_period = 5 * 3 * 7;

// ---- expected outputs ----------------------------------------------------------------------

// Element `index` of every rank's input reduced with `op` (avg: the sum over the ranks,
// truncated toward zero for integer types).
double reduced(reduce_op op, element_type type, int ranks, std::size_t index) {
  double value = reduction_input(op, 0, index);
  for (int r = 1; r < ranks; ++r) {
    const double v = reduction_input(op, r, index);
    switch (op) {
      case reduce_op::sum:
      case reduce_op::avg: value += v; break;
      case reduce_op::prod: value *= v; break;
      case reduce_op::max: value = std::max(value, v); break;
      case reduce_op::min: value = std::min(value, v); break;
    }
  }
  if (op == reduce_op::avg) {
    value /= ranks;
    if (type == element_type::int8 || type == element_type::int32) value = std::trunc(value);
  }
  return value;
}

// all_reduce, reduce (at the root): every element reduced.
expected_values reduced_whole(const collective_call& call) {
  return [op = call.op, type = call.type, ranks = call.ranks](std::size_t index) {
    return reduced(op, type, ranks, index);
  };
}

// reduce_scatter: this rank's block of the reduced elements.
expected_values reduced_block(const collective_call& call) {
  const std::size_t first = static_cast<std::size_t>(call.rank) * call.shape.recv_count;
  return [op = call.op, type = call.type, ranks = call.ranks, first](std::size_t index) {
    return reduced(op, type, ranks, first + index);
  };
}

// all_gather: rank r's input at block r.
expected_values gathered(const collective_call& call) {
  return [op = call.op, per_rank = call.shape.send_count](std::size_t index) {
    return moved_input(op, static_cast<int>(index / per_rank), index % per_rank);
  };
}

// broadcast: the root's input.
expected_values broadcast_from_root(const collective_call& call) {
  return [op = call.op, root = call.root](std::size_t index) { return moved_input(op, root, index); };
}

std::size_t gathered_input_at(const call_shape& shape, int rank) {
  return static_cast<std::size_t>(rank) * shape.send_count;
}

// ---- point-to-point transfers --------------------------------------------------------------

// alltoall: block `to` of `from`'s input to block `from` of `to`'s output.
peer_transfer alltoall_transfer(const call_shape& shape, int from, int to, int ranks) {
  const std::size_t block = shape.send_count / static_cast<std::size_t>(ranks);
  return {static_cast<std::size_t>(to) * block, static_cast<std::size_t>(from) * block, block};
}

// sendrecv: a ring, the whole buffer to rank + 1 (from rank - 1).
peer_transfer ring_transfer(const call_shape& shape, int from, int to, int ranks) {
  if (to != (from + 1) % ranks) return {};
  return {0, 0, shape.send_count};
}

// Sum over d < to of ((from + d) mod n): the classes k of the pairs (from, d) before `to`.
std::size_t rotated_sum(int from, int to, int ranks) {
  const auto a = static_cast<std::size_t>(from);
  const auto t = static_cast<std::size_t>(to);
  const auto before_wrap = static_cast<std::size_t>(ranks - from);  // a, a + 1, ..., n - 1
  if (t <= before_wrap) return t * a + t * (t - 1) / 2;
  const std::size_t wrapped = t - before_wrap;  // 0, 1, ..., wrapped - 1
  return before_wrap * a + before_wrap * (before_wrap - 1) / 2 + wrapped * (wrapped - 1) / 2;
}

// What `from` sends in all to ranks 0 .. to - 1 of alltoallv's pattern: the prefix sum of its
// counts, in closed form (a call of n ranks asks it n times per rank, not n^2).
std::size_t alltoallv_sent_before(std::size_t unit, std::size_t remainder, int from, int to, int ranks) {
  const int zero_class_peer = (ranks - from) % ranks;  // the d with (from + d) mod n = 0
  return unit * (rotated_sum(from, to, ranks) + static_cast<std::size_t>(to)) + (zero_class_peer < to ? remainder : 0);
}

// The values one rank receives in a point-to-point collective: each peer's input where that
// peer's transfer to this rank lands.
expected_values received_from_peers(const collective_kind& kind, const collective_call& call) {
  struct segment {
    std::size_t recv_offset;
    std::size_t count;
    std::size_t send_offset;
    int from;
  };
  std::vector<segment> segments;
  for (int from = 0; from < call.ranks; ++from) {
    const auto t = kind.transfer(call.shape, from, call.rank, call.ranks);
    if (t.count > 0) segments.push_back({t.recv_offset, t.count, t.send_offset, from});
  }
  std::sort(segments.begin(), segments.end(),
            [](const segment& a, const segment& b) { return a.recv_offset < b.recv_offset; });
  return [segments = std::move(segments), input = kind.input, op = call.op](std::size_t index) {
    const auto after = std::upper_bound(segments.begin(), segments.end(), index,
                                        [](std::size_t i, const segment& s) { return i < s.recv_offset; });
    if (after == segments.begin()) return std::numeric_limits<double>::quiet_NaN();
    const auto& s = *(after - 1);
    if (index - s.recv_offset >= s.count) return std::numeric_limits<double>::quiet_NaN();
    return input(op, s.from, s.send_offset + (index - s.recv_offset));
  };
}

}  // namespace

peer_transfer alltoallv_transfer(const call_shape& shape, int from, int to, int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  const std::size_t classes = n * (n + 1) / 2;  // the shares 1 + 2 + ... + n
  const std::size_t unit = shape.send_count / classes;
  const std::size_t remainder = shape.send_count - unit * classes;
  const auto k = static_cast<std::size_t>((from + to) % ranks);
  // Symmetric counts: what `from` receives before `to`'s block is what `to` sends before `from`'s.
  return {alltoallv_sent_before(unit, remainder, from, to, ranks),
          alltoallv_sent_before(unit, remainder, to, from, ranks), unit * (k + 1) + (k == 0 ? remainder : 0)};
}

const std::vector<collective_kind>& collective_kinds() {
  // name, reduces, has_root, output_at_root_only, shape, bus_factor, input, in_place_input,
  // expected, transfer, period
  static const std::vector<collective_kind> rows = {
      {collective::all_reduce, "all_reduce", true, false, false, whole_buffer_shape, all_reduce_factor, reduction_input,
       nullptr, reduced_whole, nullptr, reduction_period},
      {collective::all_gather, "all_gather", false, false, false, gathered_shape, all_peers_factor, moved_input,
       gathered_input_at, gathered, nullptr, 0},
      {collective::reduce_scatter, "reduce_scatter", true, false, false, scattered_shape, all_peers_factor,
       reduction_input, nullptr, reduced_block, nullptr, reduction_period},
      {collective::broadcast, "broadcast", false, true, false, whole_buffer_shape, unit_factor, moved_input, nullptr,
       broadcast_from_root, nullptr, 0},
      {collective::reduce, "reduce", true, true, true, whole_buffer_shape, unit_factor, reduction_input, nullptr,
       reduced_whole, nullptr, reduction_period},
      {collective::alltoall, "alltoall", false, false, false, exchanged_shape, all_peers_factor, moved_input, nullptr,
       nullptr, alltoall_transfer, 0},
      {collective::sendrecv, "sendrecv", false, false, false, whole_buffer_shape, unit_factor, moved_input, nullptr,
       nullptr, ring_transfer, 0},
      {collective::alltoallv, "alltoallv", false, false, false, exchanged_shape, all_peers_factor, moved_input, nullptr,
       nullptr, alltoallv_transfer, 0},
  };
  return rows;
}

std::string collective_names_text() {
  std::string text;
  for (const auto& kind : collective_kinds()) text += (text.empty() ? "" : ", ") + std::string(kind.name);
  return text;
}

const collective_kind& kind_of(collective c) {
  const auto& rows = collective_kinds();
  const auto index = static_cast<std::size_t>(c);
  if (index >= rows.size() || rows[index].id != c) {
    throw std::logic_error("collective " + std::to_string(index) + " has no row in collective_kinds()");
  }
  return rows[index];
}

expected_values expected_values_of(collective c, const collective_call& call) {
  const auto& kind = kind_of(c);
  if (kind.expected != nullptr) return kind.expected(call);
  return received_from_peers(kind, call);
}

}  // namespace ironbench::schema
