#include "serve/workload/pooling_requests.hpp"

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "core/units.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

std::int64_t pooling_text_length(std::int64_t length, double ratio, std::mt19937_64& random) {
  const auto low =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(static_cast<double>(length) * (1 - ratio))));
  const auto high =
      std::max<std::int64_t>(low, static_cast<std::int64_t>(std::ceil(static_cast<double>(length) * (1 + ratio))));
  return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

std::string pooling_random_text(std::int64_t words, std::mt19937_64& random) {
  std::uniform_int_distribution<std::size_t> word(0, std::size(one_token_words) - 1);
  std::string text;
  for (std::int64_t i = 0; i < words; ++i) text += one_token_words[word(random)];
  return text;
}

}  // namespace

std::vector<std::int64_t> parse_inputs_per_request(const std::string& text) {
  std::vector<std::int64_t> out;
  for (const auto& item : split(text)) {
    const double n = parse_number(item, "--inputs-per-request");
    if (!(n >= 1) || n != std::floor(n) || n > 1e6) {
      throw usage_error(fmt::format("--inputs-per-request takes whole numbers from 1 to 1000000, not '{}'", item));
    }
    out.push_back(static_cast<std::int64_t>(n));
  }
  if (out.empty()) throw usage_error("--inputs-per-request needs at least one number");
  return out;
}

std::vector<prepared_request> make_pooling_requests(const pooling_shape& shape, const body_settings& body,
                                                    std::size_t count, std::uint64_t seed,
                                                    const bpe_tokenizer* tokenizer) {
  const auto& d = shape.lengths;
  if (shape.inputs < 1) throw usage_error("--inputs-per-request must be at least 1");
  if (d.input_len < 1 || !(d.range_ratio >= 0 && d.range_ratio < 1)) {
    throw usage_error("--random-input-len must be positive and --random-range-ratio in [0, 1)");
  }
  const bool with_query = shape.kind != endpoint_kind::embeddings;
  if (with_query && shape.query_len < 1) throw usage_error("--rerank-query-len must be at least 1");
  const auto tokens = [&](const std::string& text) {
    return tokenizer != nullptr ? static_cast<std::int64_t>(tokenizer->count(text)) : count_words(text);
  };
  std::mt19937_64 random(seed);
  std::vector<prepared_request> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    prepared_request r;
    r.items = static_cast<std::size_t>(shape.inputs);
    const std::string query = with_query ? pooling_random_text(shape.query_len, random) : std::string();
    const std::int64_t query_tokens = with_query ? tokens(query) : 0;
    json texts = json::array();
    for (std::int64_t k = 0; k < shape.inputs; ++k) {
      auto text = pooling_random_text(pooling_text_length(d.input_len, d.range_ratio, random), random);
      r.prompt_len += query_tokens + tokens(text);
      texts.push_back(std::move(text));
    }
    json request = json::object();
    switch (shape.kind) {
      case endpoint_kind::embeddings:
        request = {{"model", body.model}, {"input", std::move(texts)}, {"encoding_format", "float"}};
        break;
      case endpoint_kind::rerank:
        request = {{"model", body.model}, {"query", query}, {"documents", std::move(texts)}};
        break;
      case endpoint_kind::tei_rerank: request = {{"query", query}, {"texts", std::move(texts)}}; break;
      case endpoint_kind::score:
        request = {{"model", body.model}, {"text_1", query}, {"text_2", std::move(texts)}};
        break;
      default: throw error("make_pooling_requests: a generating endpoint");
    }
    for (const auto& [key, value] : body.extra.items()) request[key] = value;
    r.body = core::json_text(request);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ironbench::serve
