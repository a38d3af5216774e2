// The names of collectives, element types (dtypes) and reduction operators as ironbench stores
// them, with nccl-tests' spellings: shared by the collectives sweep, its table and the
// nccl-tests importer. What each collective is (sizes, data, expected values) is the table in
// schema/collective_kinds.hpp, which these names of collectives read.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ironbench::schema {

/// One enumerator per row of collective_kinds() (schema/collective_kinds.hpp), in its order.
enum class collective { all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, alltoallv };
enum class element_type { int8, int32, fp16, bf16, fp32, fp64 };
enum class reduce_op { sum, prod, max, min, avg };

/// ironbench's name: "all_reduce", "fp32", "sum".
[[nodiscard]] const char* to_string(collective c);
[[nodiscard]] const char* to_string(element_type t);
[[nodiscard]] const char* to_string(reduce_op op);

/// The collective of an ironbench name; nullopt for any other.
[[nodiscard]] std::optional<collective> collective_from_string(const std::string& name);
/// Accepts ironbench's names and nccl-tests' (-d): int8/char, int32/int, fp16/half/float16,
/// bf16/bfloat16, fp32/float, fp64/double.
[[nodiscard]] std::optional<element_type> element_type_from_string(const std::string& name);
/// The operator of an ironbench name (sum, prod, max, min, avg); nullopt for any other.
[[nodiscard]] std::optional<reduce_op> reduce_op_from_string(const std::string& name);

/// Every collective, element type and operator, in the order `all` expands to.
[[nodiscard]] const std::vector<collective>& all_collectives();
[[nodiscard]] const std::vector<element_type>& all_element_types();
[[nodiscard]] const std::vector<reduce_op>& all_reduce_ops();

/// Bytes of one element.
[[nodiscard]] std::size_t element_size(element_type t);
/// Whether the collective reduces (takes an operator).
[[nodiscard]] bool reduces(collective c);
/// Whether the collective has a root rank (broadcast, reduce).
[[nodiscard]] bool has_root(collective c);

/// nccl-tests' name of an element type: int8, int32, half, bfloat16, float, double.
[[nodiscard]] const char* nccl_tests_type_name(element_type type);
/// ironbench's name of an nccl-tests type ("float" -> "fp32", "half" -> "fp16", "bfloat16"
/// -> "bf16", "int" -> "int32", "char" -> "int8", "double" -> "fp64"); others are kept.
[[nodiscard]] std::string dtype_of_nccl_tests_type(const std::string& nccl_tests_type);

}  // namespace ironbench::schema
