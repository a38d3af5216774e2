#include "serve/sim/sim_pooling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/json_text.hpp"
#include "serve/common/base64.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

std::uint64_t sim_splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31U);
}

double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11U) * 0x1.0p-53; }

// A JSON string or list of strings as texts; false when it is neither.
bool read_texts(const json& value, std::vector<std::string>& out) {
  if (value.is_string()) {
    out.push_back(value.get<std::string>());
    return true;
  }
  if (!value.is_array() || value.empty()) return false;
  for (const auto& item : value) {
    if (!item.is_string()) return false;
    out.push_back(item.get<std::string>());
  }
  return true;
}

}  // namespace

sim_pooling_kind sim_pooling_route(std::string_view path) {
  if (path == "/v1/embeddings" || path == "/embeddings") return sim_pooling_kind::embeddings;
  if (path == "/v1/rerank" || path == "/rerank" || path == "/v2/rerank") return sim_pooling_kind::rerank;
  if (path == "/score" || path == "/v1/score") return sim_pooling_kind::score;
  return sim_pooling_kind::none;
}

sim_pooling_request read_sim_pooling_request(sim_pooling_kind kind, const json& body) {
  sim_pooling_request r;
  r.kind = kind;
  const auto field = [&](const char* name) -> const json* {
    const auto it = body.find(name);
    return it == body.end() ? nullptr : &*it;
  };
  if (kind == sim_pooling_kind::embeddings) {
    const auto* input = field("input");
    if (input == nullptr || !read_texts(*input, r.inputs)) {
      r.error = "input must be a string or a non-empty list of strings";
      return r;
    }
    if (const auto* format = field("encoding_format"); format != nullptr && format->is_string()) {
      r.base64 = format->get<std::string>() == "base64";
    }
  } else {
    const auto* query = field(kind == sim_pooling_kind::rerank ? "query" : "text_1");
    if (query == nullptr || !query->is_string()) {
      r.error = kind == sim_pooling_kind::rerank ? "query must be a string" : "text_1 must be a string";
      return r;
    }
    r.query = query->get<std::string>();
    const json* documents = field(kind == sim_pooling_kind::rerank ? "documents" : "text_2");
    if (kind == sim_pooling_kind::rerank && documents == nullptr) {
      documents = field("texts");
      r.tei_form = documents != nullptr;
    }
    if (documents == nullptr || !read_texts(*documents, r.inputs)) {
      r.error = kind == sim_pooling_kind::rerank ? "documents (or texts) must be a non-empty list of strings"
                                                 : "text_2 must be a string or a non-empty list of strings";
      return r;
    }
  }
  const std::int64_t query_words = r.query.empty() ? 0 : count_words(r.query);
  for (const auto& text : r.inputs) r.prompt_tokens += query_words + count_words(text);
  return r;
}

std::uint64_t sim_text_hash(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

std::vector<double> sim_embedding(std::string_view text, int dimension) {
  const auto h = sim_text_hash(text);
  std::vector<double> v(static_cast<std::size_t>(dimension));
  double norm = 0;
  for (int k = 0; k < dimension; ++k) {
    v[static_cast<std::size_t>(k)] = 2 * unit_interval(sim_splitmix64(h + static_cast<std::uint64_t>(k))) - 1;
    norm += v[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
  }
  norm = std::sqrt(norm);
  if (norm > 0) {
    for (auto& x : v) x /= norm;
  }
  return v;
}

double sim_relevance(std::string_view query, std::string_view document) {
  std::string pair(query);
  pair += '\n';
  pair += document;
  return unit_interval(sim_splitmix64(sim_text_hash(pair)));
}

std::string sim_pooling_reply(const sim_pooling_request& r, const std::string& model, std::uint64_t number,
                              int dimension, bool drop_last) {
  std::size_t count = r.inputs.size();
  if (drop_last && count > 0) --count;
  const json usage = {{"prompt_tokens", r.prompt_tokens}, {"total_tokens", r.prompt_tokens}};
  if (r.kind == sim_pooling_kind::embeddings) {
    json data = json::array();
    for (std::size_t i = 0; i < count; ++i) {
      const auto v = sim_embedding(r.inputs[i], dimension);
      json embedding;
      if (r.base64) {
        std::string bytes(v.size() * 4, '\0');
        for (std::size_t k = 0; k < v.size(); ++k) {
          const auto f = static_cast<float>(v[k]);
          std::memcpy(&bytes[k * 4], &f, 4);
        }
        embedding = base64_encoded(bytes);
      } else {
        embedding = v;
      }
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
    }
    return core::json_text(json{{"id", fmt::format("embd-{}", number)},
                                {"object", "list"},
                                {"model", model},
                                {"data", std::move(data)},
                                {"usage", usage}});
  }
  std::vector<double> scores;
  for (std::size_t i = 0; i < count; ++i) scores.push_back(sim_relevance(r.query, r.inputs[i]));
  if (r.kind == sim_pooling_kind::score) {
    json data = json::array();
    for (std::size_t i = 0; i < count; ++i) data.push_back({{"index", i}, {"object", "score"}, {"score", scores[i]}});
    return core::json_text(json{{"id", fmt::format("score-{}", number)},
                                {"object", "list"},
                                {"model", model},
                                {"data", std::move(data)},
                                {"usage", usage}});
  }
  // Rerank: the most relevant first, as vLLM and TEI order them.
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  json results = json::array();
  for (const auto i : order) {
    if (r.tei_form) {
      results.push_back({{"index", i}, {"score", scores[i]}});
    } else {
      results.push_back({{"index", i}, {"document", {{"text", r.inputs[i]}}}, {"relevance_score", scores[i]}});
    }
  }
  if (r.tei_form) return core::json_text(results);
  return core::json_text(json{{"id", fmt::format("rerank-{}", number)},
                              {"model", model},
                              {"results", std::move(results)},
                              {"usage", {{"total_tokens", r.prompt_tokens}}}});
}

}  // namespace ironbench::serve
