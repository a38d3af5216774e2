#include "experiment/recipe_node.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace ironbench::experiment {
namespace {

// yaml-cpp counts from 0, and marks what it cannot place with -1.
source_location location_of(const YAML::Mark& mark, const std::string& file) {
  return {file, mark.line >= 0 ? mark.line + 1 : 1, mark.column >= 0 ? mark.column + 1 : 1};
}

recipe_node convert(const YAML::Node& node, const std::string& file) {
  recipe_node out;
  out.where = location_of(node.Mark(), file);
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.type = recipe_node::kind::scalar;
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.type = recipe_node::kind::sequence;
      for (const auto& item : node) out.items.push_back(convert(item, file));
      break;
    case YAML::NodeType::Map:
      out.type = recipe_node::kind::map;
      for (const auto& entry : node) {
        const auto where = location_of(entry.first.Mark(), file);
        if (!entry.first.IsScalar()) throw recipe_error(where, "a key must be plain text");
        const auto key = entry.first.Scalar();
        if (out.find(key) != nullptr) throw recipe_error(where, fmt::format("duplicate key '{}'", key));
        auto value = convert(entry.second, file);
        value.key_where = where;
        // A key with nothing after it ("key:") has no mark of its own: point at the key.
        if (value.type == recipe_node::kind::null) value.where = where;
        out.entries.push_back(recipe_entry{key, std::move(value)});
      }
      break;
    default: out.type = recipe_node::kind::null; break;
  }
  return out;
}

}  // namespace

std::string to_string(const source_location& where) {
  return fmt::format("{}:{}:{}", where.file, where.line, where.column);
}

usage_error recipe_error(const source_location& where, const std::string& message) {
  return usage_error(fmt::format("{}: {}", to_string(where), message));
}

const recipe_node* recipe_node::find(const std::string& key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

const char* kind_name(recipe_node::kind type) {
  switch (type) {
    case recipe_node::kind::scalar: return "a scalar";
    case recipe_node::kind::map: return "a map";
    case recipe_node::kind::sequence: return "a list";
    case recipe_node::kind::null: break;
  }
  return "nothing";
}

recipe_node parse_recipe_document(const std::string& text, const std::string& file) {
  try {
    const auto root = YAML::Load(text);
    auto node = convert(root, file);
    if (node.type == recipe_node::kind::null) node.where = {file, 1, 1};
    return node;
  } catch (const YAML::Exception& e) {
    throw recipe_error(location_of(e.mark, file), e.msg);
  }
}

}  // namespace ironbench::experiment
