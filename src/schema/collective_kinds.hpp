// The collectives, one table: each row says what one collective is, as everything but a
// backend's call needs it: its name, whether it reduces or has a root, how nccl-tests sizes it
// (counts per rank, the bytes of algbw, the bus bandwidth factor), what each rank puts in its
// input and what each rank's output must then hold, exactly. The names, `all`, the sweep's
// shapes and bandwidths, the data fill and the #wrong check all read it; a point-to-point row
// (alltoall, alltoallv, sendrecv) also says what every rank sends every other, from which its expected
// values and the grouped send/receive of NCCL/RCCL follow. Adding a collective is its
// enumerator (schema/collective_names.hpp), its row here, and its call in each backend
// (docs/contributing.md, "Adding a collective"). Pure C++, no MPI, no GPU runtime.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "schema/collective_names.hpp"
#include "schema/collective_rows.hpp"

namespace ironbench::schema {

/// One rank's view of one call: what its input and output hold depends on these.
struct collective_call {
  call_shape shape;
  element_type type = element_type::fp32;
  reduce_op op = reduce_op::sum;
  int rank = 0;
  int ranks = 1;
  int root = 0;
};

/// What one rank sends another in a point-to-point collective: `count` elements from element
/// `send_offset` of the sender's input to element `recv_offset` of the receiver's output.
struct peer_transfer {
  std::size_t send_offset = 0;
  std::size_t recv_offset = 0;
  std::size_t count = 0;
};

/// The value element `index` of one rank's output must hold, prepared once per call.
using expected_values = std::function<double(std::size_t index)>;

/// One row of the table.
struct collective_kind {
  collective id;
  const char* name;          ///< ironbench's name, nccl-tests' program without "_perf"
  bool reduces;              ///< takes an operator
  bool has_root;             ///< takes a root rank
  bool output_at_root_only;  ///< only the root has an output (reduce)
  /// nccl-tests' counts for `elements` (the size over the element size) over `ranks`
  /// (schema::call_shape); the bus factor is filled from the next field.
  call_shape (*shape)(std::size_t elements, std::size_t element_bytes, int ranks);
  /// nccl-tests' bus bandwidth factor over `ranks`: busbw = algbw x factor.
  double (*bus_factor)(int ranks);
  /// The value rank `rank` puts at element `index` of its input: a small integer, exact in
  /// every element type (collective_data.hpp says which ranges).
  double (*input)(reduce_op op, int rank, std::size_t index);
  /// In place, the element where rank `rank`'s input starts in the one buffer (all_gather: its
  /// block of the output, NCCL's and MPI's layout); null: at 0.
  std::size_t (*in_place_input)(const call_shape& shape, int rank);
  /// The expected output of a library collective; null for a point-to-point row, whose
  /// expected values follow from `transfer` and `input`.
  expected_values (*expected)(const collective_call& call);
  /// A point-to-point collective: what rank `from` sends rank `to` (count 0: nothing); null
  /// for the collectives a library runs as one call.
  peer_transfer (*transfer)(const call_shape& shape, int from, int to, int ranks);
  /// The expected output repeats every this many elements (the reductions: their inputs'
  /// periods 5, 3 and 7), so a check computes one period; 0: no period.
  std::size_t period;
};

/// Every row, in the enumerators' order, which is the order `all` expands to.
[[nodiscard]] const std::vector<collective_kind>& collective_kinds();

/// Every collective's name in the table's order, comma-separated: "all_reduce, all_gather, ...".
[[nodiscard]] std::string collective_names_text();

/// The row of `c`.
[[nodiscard]] const collective_kind& kind_of(collective c);

/// The values one rank's output must hold after a call of `c` (the row's `expected`, or for a
/// point-to-point row the inputs its peers send it; an element no peer sends expects NaN,
/// which no value equals).
[[nodiscard]] expected_values expected_values_of(collective c, const collective_call& call);

/// alltoallv's uneven pattern (docs/metrics.md): of its C = shape.send_count elements, rank s
/// sends rank d u x (k + 1), k = (s + d) mod n, u = floor(C / (n(n+1)/2)), and the pair with
/// k = 0 also the remainder C - u x n(n+1)/2. Every rank so sends and receives C elements, in
/// peer order (displacements are prefix sums), and what s sends d equals what d sends s, which
/// MPI's in-place alltoallv needs.
[[nodiscard]] peer_transfer alltoallv_transfer(const call_shape& shape, int from, int to, int ranks);

}  // namespace ironbench::schema
