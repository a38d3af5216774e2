// What one call of a collective moves: the counts each rank sends and receives for a given
// size, and nccl-tests' bus bandwidth factor, as the collective's row in
// schema/collective_kinds.hpp says. The names of collectives, element types and operators, and
// the row types, are schema's (schema/collective_names.hpp, collective_rows.hpp) and named here
// too. Pure C++, tested everywhere. Formulas: docs/metrics.md ("collectives").
#pragma once

#include <cstddef>

#include "schema/collective_names.hpp"
#include "schema/collective_rows.hpp"

namespace ironbench::comm {

using schema::all_collectives;
using schema::all_element_types;
using schema::all_reduce_ops;
using schema::call_shape;
using schema::collective;
using schema::collective_from_string;
using schema::element_size;
using schema::element_type;
using schema::element_type_from_string;
using schema::has_root;
using schema::reduce_op;
using schema::reduce_op_from_string;
using schema::reduces;
using schema::to_string;

/// The shape of `c` over `ranks` ranks for a requested size (rounded down to whole elements,
/// and for the per-rank collectives to a multiple of `ranks` elements).
[[nodiscard]] call_shape shape_of(collective c, std::size_t size_bytes, element_type t, int ranks);

/// nccl-tests' bus bandwidth factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter,
/// alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
[[nodiscard]] double bus_factor(collective c, int ranks);

}  // namespace ironbench::comm
