#include "experiment/recipe_node.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <unordered_set>

#include "experiment/recipe_limits.hpp"

namespace ironbench::experiment {
namespace {

// yaml-cpp counts from 0, and marks what it cannot place with -1.
source_location location_of(const YAML::Mark& mark, const std::string& file) {
  return {file, mark.line >= 0 ? mark.line + 1 : 1, mark.column >= 0 ? mark.column + 1 : 1};
}

// What the document has grown to while its aliases are expanded (recipe_limits.hpp): yaml-cpp
// shares an aliased node, the tree below copies it at every use.
struct expansion {
  const std::string& file;
  std::size_t nodes = 0;
  std::size_t text_bytes = 0;

  void add(const YAML::Mark& mark, std::size_t bytes, int depth) {
    if (++nodes > max_document_nodes) {
      throw recipe_error(location_of(mark, file),
                         fmt::format("the recipe expands to more than {} YAML nodes (the limit of a document, "
                                     "aliases expanded)",
                                     max_document_nodes));
    }
    text_bytes += bytes;
    if (text_bytes > max_document_text_bytes) {
      throw recipe_error(location_of(mark, file),
                         fmt::format("the recipe expands to more than {} of text (the limit of a document, "
                                     "aliases expanded)",
                                     core::limit_text(max_document_text_bytes)));
    }
    if (depth > max_document_depth) {
      throw recipe_error(
          location_of(mark, file),
          fmt::format("the recipe nests maps and lists deeper than {} levels (aliases expanded)", max_document_depth));
    }
  }
};

recipe_node convert(const YAML::Node& node, expansion& grown, int depth) {
  const auto& file = grown.file;
  recipe_node out;
  out.where = location_of(node.Mark(), file);
  grown.add(node.Mark(), node.IsScalar() ? node.Scalar().size() : 0, depth);
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      out.type = recipe_node::kind::scalar;
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence:
      out.type = recipe_node::kind::sequence;
      for (const auto& item : node) out.items.push_back(convert(item, grown, depth + 1));
      break;
    case YAML::NodeType::Map: {
      out.type = recipe_node::kind::map;
      std::unordered_set<std::string> keys;
      for (const auto& entry : node) {
        const auto where = location_of(entry.first.Mark(), file);
        if (!entry.first.IsScalar()) throw recipe_error(where, "a key must be plain text");
        const auto key = entry.first.Scalar();
        if (!keys.insert(key).second) throw recipe_error(where, fmt::format("duplicate key '{}'", key));
        grown.add(entry.first.Mark(), key.size(), depth + 1);
        auto value = convert(entry.second, grown, depth + 1);
        value.key_where = where;
        // A key with nothing after it ("key:") has no mark of its own: point at the key.
        if (value.type == recipe_node::kind::null) value.where = where;
        out.entries.push_back(recipe_entry{key, std::move(value)});
      }
      break;
    }
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
    expansion grown{file};
    auto node = convert(root, grown, 0);
    if (node.type == recipe_node::kind::null) node.where = {file, 1, 1};
    return node;
  } catch (const YAML::Exception& e) {
    throw recipe_error(location_of(e.mark, file), e.msg);
  }
}

}  // namespace ironbench::experiment
