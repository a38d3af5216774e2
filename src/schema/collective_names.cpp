#include "schema/collective_names.hpp"

#include <map>

#include "schema/collective_kinds.hpp"

namespace ironbench::schema {

const char* to_string(collective c) {
  for (const auto& kind : collective_kinds()) {
    if (kind.id == c) return kind.name;
  }
  return "unknown";
}

const char* to_string(element_type t) {
  switch (t) {
    case element_type::int8: return "int8";
    case element_type::int32: return "int32";
    case element_type::fp16: return "fp16";
    case element_type::bf16: return "bf16";
    case element_type::fp32: return "fp32";
    case element_type::fp64: return "fp64";
  }
  return "unknown";
}

const char* to_string(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return "sum";
    case reduce_op::prod: return "prod";
    case reduce_op::max: return "max";
    case reduce_op::min: return "min";
    case reduce_op::avg: return "avg";
  }
  return "unknown";
}

const std::vector<collective>& all_collectives() {
  static const std::vector<collective> all = [] {
    std::vector<collective> ids;
    for (const auto& kind : collective_kinds()) ids.push_back(kind.id);
    return ids;
  }();
  return all;
}

const std::vector<element_type>& all_element_types() {
  static const std::vector<element_type> all = {element_type::int8, element_type::int32, element_type::fp16,
                                                element_type::bf16, element_type::fp32,  element_type::fp64};
  return all;
}

const std::vector<reduce_op>& all_reduce_ops() {
  static const std::vector<reduce_op> all = {reduce_op::sum, reduce_op::prod, reduce_op::max, reduce_op::min,
                                             reduce_op::avg};
  return all;
}

std::optional<collective> collective_from_string(const std::string& name) {
  for (auto c : all_collectives()) {
    if (name == to_string(c)) return c;
  }
  return std::nullopt;
}

std::optional<element_type> element_type_from_string(const std::string& name) {
  struct alias {
    const char* name;
    element_type type;
  };
  static const alias aliases[] = {{"char", element_type::int8},     {"int", element_type::int32},
                                  {"half", element_type::fp16},     {"float16", element_type::fp16},
                                  {"bfloat16", element_type::bf16}, {"float", element_type::fp32},
                                  {"double", element_type::fp64}};
  for (auto t : all_element_types()) {
    if (name == to_string(t)) return t;
  }
  for (const auto& a : aliases) {
    if (name == a.name) return a.type;
  }
  return std::nullopt;
}

std::optional<reduce_op> reduce_op_from_string(const std::string& name) {
  for (auto op : all_reduce_ops()) {
    if (name == to_string(op)) return op;
  }
  return std::nullopt;
}

std::size_t element_size(element_type t) {
  switch (t) {
    case element_type::int8: return 1;
    case element_type::fp16:
    case element_type::bf16: return 2;
    case element_type::int32:
    case element_type::fp32: return 4;
    case element_type::fp64: return 8;
  }
  return 1;
}

bool reduces(collective c) { return kind_of(c).reduces; }

bool has_root(collective c) { return kind_of(c).has_root; }

const char* nccl_tests_type_name(element_type type) {
  switch (type) {
    case element_type::int8: return "int8";
    case element_type::int32: return "int32";
    case element_type::fp16: return "half";
    case element_type::bf16: return "bfloat16";
    case element_type::fp32: return "float";
    case element_type::fp64: return "double";
  }
  return "unknown";
}

std::string dtype_of_nccl_tests_type(const std::string& type) {
  static const std::map<std::string, std::string> names = {
      {"char", "int8"},    {"int8", "int8"},    {"int", "int32"},     {"int32", "int32"},
      {"half", "fp16"},    {"float16", "fp16"}, {"bfloat16", "bf16"}, {"float", "fp32"},
      {"float32", "fp32"}, {"double", "fp64"},  {"float64", "fp64"}};
  const auto it = names.find(type);
  return it == names.end() ? type : it->second;
}

}  // namespace ironbench::schema
