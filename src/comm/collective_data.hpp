// Inputs whose collective results are exactly predictable, and the count of wrong output
// elements (nccl-tests' #wrong): the bytes of the values each collective's row in
// schema/collective_kinds.hpp gives. Every input value is a small integer, exact in every element
// type, chosen per operator so that no result overflows int8 or loses bits in bf16 for up to
// 63 ranks: sum and avg use -2..2, prod uses +-1, max and min -3..3, the data-moving
// collectives -30..30 as a function of (rank, index).
#pragma once

#include <cstddef>

#include "comm/collective.hpp"

namespace ironbench::comm {

/// The value rank `rank` contributes at element `index` of its input.
[[nodiscard]] double input_value(collective c, reduce_op op, int rank, std::size_t index);

/// The value element `index` of rank `rank`'s output must hold (for reduce: at the root).
/// avg is the sum divided by the rank count (truncated toward zero for integer types).
[[nodiscard]] double expected_output(collective c, reduce_op op, element_type type, const call_shape& shape, int rank,
                                     int ranks, int root, std::size_t index);

/// Writes rank `rank`'s input: `count` elements of `type` starting at input index 0.
void fill_input(collective c, reduce_op op, element_type type, int rank, void* buffer, std::size_t count);

/// Element `index` of a buffer of `type`, as a double.
[[nodiscard]] double element_at(element_type type, const void* buffer, std::size_t index);

/// Elements of rank `rank`'s output (shape.recv_count of them at `output`) that differ from
/// expected_output. Floating-point avg is allowed 2 ulp of its type; everything else must be
/// exact. Non-root ranks of reduce have no output: 0.
[[nodiscard]] std::size_t count_wrong(collective c, reduce_op op, element_type type, const call_shape& shape, int rank,
                                      int ranks, int root, const void* output);

}  // namespace ironbench::comm
