// The collectives, element types and reduction operators, and what one call moves: the counts
// each rank sends and receives for a given size, and nccl-tests' bus bandwidth factor.
// Pure C++, tested everywhere. Formulas: docs/metrics.md ("collectives").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ironbench::comm {

enum class collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv };
enum class element_type { int8, int32, fp16, bf16, fp32, fp64 };
enum class reduce_op { sum, prod, max, min, avg };

[[nodiscard]] const char* to_string(collective c);
[[nodiscard]] const char* to_string(element_type t);
[[nodiscard]] const char* to_string(reduce_op op);
[[nodiscard]] std::optional<collective> collective_from_string(const std::string& name);
/// Accepts ironbench's names and nccl-tests' (-d): int8/char, int32/int, fp16/half/float16,
/// bf16/bfloat16, fp32/float, fp64/double.
[[nodiscard]] std::optional<element_type> element_type_from_string(const std::string& name);
[[nodiscard]] std::optional<reduce_op> reduce_op_from_string(const std::string& name);

[[nodiscard]] const std::vector<collective>& all_collectives();
[[nodiscard]] const std::vector<element_type>& all_element_types();
[[nodiscard]] const std::vector<reduce_op>& all_reduce_ops();

/// Bytes of one element.
[[nodiscard]] std::size_t element_size(element_type t);
/// Whether the collective reduces (takes an operator).
[[nodiscard]] bool reduces(collective c);
/// Whether the collective has a root rank (broadcast, reduce).
[[nodiscard]] bool has_root(collective c);

/// One call's shape for `size_bytes` as nccl-tests sizes it (-b/-e give this number):
/// all_reduce, broadcast, reduce, sendrecv: the buffer; all_gather: the gathered output;
/// reduce_scatter and alltoall: each rank's whole input.
struct call_shape {
  std::size_t count = 0;       ///< size / element size (rounded as below)
  /// The count each rank passes to the library (nccl-tests' count column): per rank for
  /// all_gather and reduce_scatter, per peer for alltoall, else `count`.
  std::size_t param_count = 0;
  std::size_t send_count = 0;  ///< elements each rank sends
  std::size_t recv_count = 0;  ///< elements each rank receives
  double algorithm_bytes = 0;  ///< S in algbw = S / t
  double bus_factor = 0;       ///< busbw = algbw x bus_factor
};

/// The shape of `c` over `ranks` ranks for a requested size (rounded down to whole elements,
/// and for the per-rank collectives to a multiple of `ranks` elements).
[[nodiscard]] call_shape shape_of(collective c, std::size_t size_bytes, element_type t, int ranks);

/// nccl-tests' bus bandwidth factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter,
/// alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
[[nodiscard]] double bus_factor(collective c, int ranks);

}  // namespace ironbench::comm
