#include "serve/client/pooling_reply.hpp"

#include <simdjson.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "serve/client/utf8_repair.hpp"

namespace ironbench::serve {
namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

std::optional<std::int64_t> reply_integer(element object, const char* name) {
  std::int64_t n = 0;
  if (object[name].get_int64().get(n) != simdjson::SUCCESS) return std::nullopt;
  return n;
}

// The number `value`, when it is one and finite.
std::optional<double> reply_finite_number(element value) {
  double x = 0;
  if (value.get_double().get(x) != simdjson::SUCCESS || !std::isfinite(x)) return std::nullopt;
  return x;
}

// The float32 count of a base64 embedding (encoding_format "base64"), checking every value.
std::optional<std::size_t> base64_floats(std::string_view text, std::string& why) {
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> bytes;
  bytes.reserve(text.size() / 4 * 3);
  std::uint32_t group = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const auto at = alphabet.find(c);
    if (at == std::string_view::npos) {
      why = "an embedding string that is not base64";
      return std::nullopt;
    }
    group = (group << 6U) | static_cast<std::uint32_t>(at);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push_back(static_cast<unsigned char>((group >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  if (bytes.size() % 4 != 0) {
    why = fmt::format("a base64 embedding of {} bytes, not a whole number of float32s", bytes.size());
    return std::nullopt;
  }
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    float value = 0;
    std::memcpy(&value, &bytes[i], 4);
    if (!std::isfinite(value)) {
      why = fmt::format("a non-finite value at position {} of a base64 embedding", i / 4);
      return std::nullopt;
    }
  }
  return bytes.size() / 4;
}

// Checks that `indices` (one per result) are 0..n-1, each once.
std::string reply_index_problem(const std::vector<std::int64_t>& indices) {
  std::vector<bool> seen(indices.size(), false);
  for (const auto index : indices) {
    if (index < 0 || static_cast<std::size_t>(index) >= indices.size()) {
      return fmt::format("index {} is outside 0..{}", index, indices.size() - 1);
    }
    if (seen[static_cast<std::size_t>(index)]) return fmt::format("index {} appears twice", index);
    seen[static_cast<std::size_t>(index)] = true;
  }
  return {};
}

void read_reply_usage(element root, pooling_reply& out) {
  element usage;
  if (root["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
  out.prompt_tokens = reply_integer(usage, "prompt_tokens");
  if (!out.prompt_tokens) out.prompt_tokens = reply_integer(usage, "total_tokens");
}

// Embeddings: data[] of {"index", "embedding"}.
std::string check_embeddings(element root, std::size_t inputs, pooling_reply& out) {
  simdjson::dom::array data;
  if (root["data"].get_array().get(data) != simdjson::SUCCESS) return "no \"data\" list of embeddings";
  std::vector<std::int64_t> indices;
  std::size_t position = 0;
  for (element item : data) {
    const auto index = item.is_object() ? reply_integer(item, "index") : std::nullopt;
    if (!index) return fmt::format("data[{}] has no integer \"index\"", position);
    indices.push_back(*index);
    element vector;
    if (item["embedding"].get(vector) != simdjson::SUCCESS) return fmt::format("data[{}] has no embedding", position);
    std::size_t dimension = 0;
    if (vector.is_array()) {
      for (element value : vector.get_array()) {
        if (value.is_array()) {  // llama.cpp's server for a model without pooling
          return fmt::format(
              "data[{}].embedding is a list of vectors (one per token), not one pooled vector: the "
              "server pools nothing for this model",
              position);
        }
        if (!reply_finite_number(value)) {
          return fmt::format("data[{}].embedding[{}] is not a finite number", position, dimension);
        }
        ++dimension;
      }
    } else if (vector.is_string()) {
      std::string why;
      const auto floats = base64_floats(std::string_view(vector.get_string()), why);
      if (!floats) return fmt::format("data[{}]: {}", position, why);
      dimension = *floats;
    } else {
      return fmt::format("data[{}].embedding is neither a list nor base64", position);
    }
    if (dimension == 0) return fmt::format("data[{}].embedding is empty", position);
    if (out.dimension != 0 && dimension != out.dimension) {
      return fmt::format("embeddings of {} and {} dimensions in one reply", out.dimension, dimension);
    }
    out.dimension = dimension;
    ++position;
  }
  out.results = position;
  if (position != inputs) return fmt::format("{} embeddings for {} inputs", position, inputs);
  return reply_index_problem(indices);
}

// Rerank and score: a list of {"index", score} under `list_key` (or the root itself, TEI).
std::string check_scores(element root, std::size_t inputs, pooling_reply& out, const char* what) {
  simdjson::dom::array list;
  const char* score_keys[] = {"relevance_score", "score"};
  if (root.is_array()) {
    list = root.get_array();
  } else if (root["results"].get_array().get(list) != simdjson::SUCCESS &&
             root["data"].get_array().get(list) != simdjson::SUCCESS) {
    return fmt::format("no \"results\" or \"data\" list of {}", what);
  }
  std::vector<std::int64_t> indices;
  std::size_t position = 0;
  for (element item : list) {
    const auto index = item.is_object() ? reply_integer(item, "index") : std::nullopt;
    if (!index) return fmt::format("result {} has no integer \"index\"", position);
    indices.push_back(*index);
    bool scored = false;
    for (const char* key : score_keys) {
      element value;
      if (item[key].get(value) != simdjson::SUCCESS) continue;
      if (!reply_finite_number(value)) return fmt::format("result {}'s {} is not a finite number", position, key);
      scored = true;
      break;
    }
    if (!scored) return fmt::format("result {} has no relevance_score or score", position);
    ++position;
  }
  out.results = position;
  if (position != inputs) return fmt::format("{} {} for {} documents", position, what, inputs);
  return reply_index_problem(indices);
}

}  // namespace

pooling_reply read_pooling_reply(endpoint_kind kind, std::string_view body, std::size_t inputs) {
  pooling_reply out;
  const auto excerpt = [&] { return repaired_utf8(body.substr(0, 120)); };
  thread_local simdjson::dom::parser parser;
  element root;
  if (parser.parse(body.data(), body.size()).get(root) != simdjson::SUCCESS) {
    out.error_class = "malformed";
    out.error = "the reply is not JSON: " + excerpt();
    return out;
  }
  if (root.is_object()) {
    element error;
    if (root["error"].get(error) == simdjson::SUCCESS && !error.is_null()) {
      out.error_class = "server_error";
      std::string_view message;
      if (error.is_string()) {
        out.error = repaired_utf8(error.get_string().value());
      } else if (error["message"].get_string().get(message) == simdjson::SUCCESS) {
        out.error = repaired_utf8(message);
      } else {
        out.error = "server error";
      }
      return out;
    }
    read_reply_usage(root, out);
  }
  std::string problem;
  if (kind == endpoint_kind::embeddings) {
    problem = root.is_object() ? check_embeddings(root, inputs, out) : "not an embeddings object: " + excerpt();
  } else {
    problem = check_scores(root, inputs, out, kind == endpoint_kind::score ? "scores" : "rerank results");
  }
  if (!problem.empty()) {
    out.error_class = "malformed";
    out.error = problem;
  } else if (out.prompt_tokens && *out.prompt_tokens < 0) {
    out.error_class = "malformed";
    out.error = fmt::format("usage reports {} prompt tokens", *out.prompt_tokens);
  }
  // One huge reply must not leave its buffers behind for the rest of the run.
  if (parser.capacity() > (std::size_t{64} << 20)) parser = simdjson::dom::parser{};
  return out;
}

std::string pooling_dimension::check(std::size_t dimension) {
  if (dimension == 0) return {};
  if (dimension_ == 0) dimension_ = dimension;
  if (dimension == dimension_) return {};
  return fmt::format("embeddings of {} dimensions where the point's first reply had {}", dimension, dimension_);
}

void finish_pooling_record(request_record& r, endpoint_kind kind, std::string_view body, std::size_t inputs,
                           double end_s, pooling_dimension& dimension) {
  r.e2el_s = end_s - r.sent_s;
  auto reply = read_pooling_reply(kind, body, inputs);
  if (reply.error_class.empty()) {
    if (auto why = dimension.check(reply.dimension); !why.empty()) {
      reply.error_class = "malformed";
      reply.error = std::move(why);
    }
  }
  if (!reply.error_class.empty()) {
    r.error_class = std::move(reply.error_class);
    r.error = std::move(reply.error);
    return;
  }
  r.success = true;
  r.usage_prompt_tokens = reply.prompt_tokens;
  r.output_len = 0;
}

}  // namespace ironbench::serve
