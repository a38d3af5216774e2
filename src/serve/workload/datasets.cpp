#include "serve/workload/datasets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <istream>
#include <random>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

const auto& words = one_token_words;

std::int64_t draw_length(std::int64_t length, double ratio, std::mt19937_64& random) {
  const auto low = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(length * (1 - ratio))));
  const auto high = std::max<std::int64_t>(low, static_cast<std::int64_t>(std::ceil(length * (1 + ratio))));
  return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

// Whether the building of requests stops before request `i`: `stop` is read every 64 requests,
// and never before the first 64, so that a point stopped while it is built still has requests.
bool stopped_at(std::size_t i, const std::atomic<bool>* stop) {
  return stop != nullptr && i > 0 && i % 64 == 0 && stop->load();
}

}  // namespace

std::string request_body(const body_settings& b, const json& prompt, std::int64_t max_tokens) {
  if (b.api == openai_api::chat) {
    return chat_request_body(b, json::array({{{"role", "user"}, {"content", prompt}}}), max_tokens);
  }
  json body = {{"model", b.model}};
  body["prompt"] = prompt;
  body["max_tokens"] = max_tokens;
  return finish_body(b, std::move(body));
}

std::string chat_request_body(const body_settings& b, const json& messages, std::int64_t max_tokens) {
  json body = {{"model", b.model}};
  body["messages"] = messages;
  body["max_completion_tokens"] = max_tokens;
  return finish_body(b, std::move(body));
}

std::string finish_body(const body_settings& b, json body) {
  body["stream"] = b.stream;
  if (b.stream) body["stream_options"] = {{"include_usage", true}};
  if (b.ignore_eos) body["ignore_eos"] = true;
  for (const auto& [key, value] : b.extra.items()) body[key] = value;
  return core::json_text(body);
}

std::vector<prepared_request> make_random_requests(const random_dataset& d, const body_settings& body,
                                                   std::size_t count, std::uint64_t seed,
                                                   const std::atomic<bool>* stop) {
  if (d.input_len < 1 || d.output_len < 1 || !(d.range_ratio >= 0 && d.range_ratio < 1) || d.prefix_len < 0) {
    throw usage_error("random dataset: lengths must be positive and --random-range-ratio in [0, 1)");
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> token(100, d.vocab_size - 1);
  std::uniform_int_distribution<std::size_t> word(0, std::size(words) - 1);
  std::vector<std::int64_t> prefix_ids(static_cast<std::size_t>(d.prefix_len));
  for (auto& t : prefix_ids) t = token(random);
  std::string prefix_text;
  for (std::int64_t i = 0; i < d.prefix_len; ++i) prefix_text += words[word(random)];
  std::vector<prepared_request> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count && !stopped_at(i, stop); ++i) {
    const auto input = draw_length(d.input_len, d.range_ratio, random);
    const auto output = draw_length(d.output_len, d.range_ratio, random);
    prepared_request r;
    r.prompt_len = d.prefix_len + input;
    r.max_tokens = output;
    if (body.api == openai_api::completions) {
      json ids = json::array();
      for (auto t : prefix_ids) ids.push_back(t);
      for (std::int64_t k = 0; k < input; ++k) ids.push_back(token(random));
      r.body = request_body(body, ids, output);
    } else {
      std::string text = prefix_text;
      for (std::int64_t k = 0; k < input; ++k) text += words[word(random)];
      r.body = request_body(body, text, output);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<prepared_request> make_custom_requests(const std::string& path, std::int64_t output_len,
                                                   const body_settings& body, std::size_t count) {
  // Line by line, only as far as `count` prompts, each line within core::max_line_bytes.
  core::bounded_reader in(path, core::file_kinds::dataset);
  std::vector<prepared_request> out;
  std::string line;
  while (out.size() < count && in.next_line(line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("prompt") || !j.at("prompt").is_string()) {
      throw usage_error(fmt::format("{}:{}: expected a JSON object with a \"prompt\" string", path, in.line_number()));
    }
    const auto prompt = j.at("prompt").get<std::string>();
    prepared_request r;
    r.prompt_len = count_words(prompt);
    r.max_tokens = j.value("output_tokens", output_len);
    r.body = request_body(body, prompt, r.max_tokens);
    out.push_back(std::move(r));
  }
  if (out.empty()) throw usage_error(fmt::format("--dataset-path {} has no prompts", path));
  const std::size_t distinct = out.size();
  for (std::size_t i = 0; out.size() < count; ++i) out.push_back(out[i % distinct]);  // reuse, in order
  return out;
}

std::vector<prepared_request> make_prefix_repetition_requests(const prefix_repetition_dataset& d,
                                                              const body_settings& body, std::size_t count,
                                                              std::uint64_t seed, const std::atomic<bool>* stop) {
  if (d.prefix_len < 0 || d.suffix_len < 0 || d.prefix_len + d.suffix_len < 1 || d.num_prefixes < 1 ||
      d.output_len < 1) {
    throw usage_error("prefix-repetition dataset: lengths must be positive and --prefix-repetition-num-prefixes >= 1");
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> token(100, d.vocab_size - 1);
  std::uniform_int_distribution<std::size_t> word(0, std::size(words) - 1);
  const auto ids = [&](std::int64_t n) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (auto& t : v) t = token(random);
    return v;
  };
  const auto text = [&](std::int64_t n) {
    std::string t;
    for (std::int64_t i = 0; i < n; ++i) t += words[word(random)];
    return t;
  };
  std::vector<std::vector<std::int64_t>> prefix_ids;
  std::vector<std::string> prefix_texts;
  for (std::int64_t p = 0; p < d.num_prefixes; ++p) {
    prefix_ids.push_back(ids(d.prefix_len));
    prefix_texts.push_back(text(d.prefix_len));
  }
  std::vector<prepared_request> out;
  for (std::size_t i = 0; i < count && !stopped_at(i, stop); ++i) {
    const auto p = i % static_cast<std::size_t>(d.num_prefixes);
    prepared_request r;
    r.prompt_len = d.prefix_len + d.suffix_len;
    r.max_tokens = d.output_len;
    if (body.api == openai_api::completions) {
      json prompt = prefix_ids[p];
      for (auto t : ids(d.suffix_len)) prompt.push_back(t);
      r.body = request_body(body, prompt, d.output_len);
    } else {
      r.body = request_body(body, prefix_texts[p] + text(d.suffix_len), d.output_len);
    }
    out.push_back(std::move(r));
  }
  return out;
}

json read_sharegpt_file(const std::string& path) {
  // Parsed as it is read, within the dataset limit: no copy of the file's text is kept.
  core::bounded_reader reader(path, core::file_kinds::dataset);
  core::bounded_streambuf buffer(reader);
  std::istream in(&buffer);
  auto data = json::parse(in, nullptr, false);
  if (data.is_discarded() || !data.is_array()) {
    throw usage_error(fmt::format("{}: not a ShareGPT file (a JSON list of conversations)", path));
  }
  return data;
}

std::int64_t text_length(const std::string& text, const bpe_tokenizer* tokenizer) {
  if (tokenizer != nullptr) return static_cast<std::int64_t>(tokenizer->count(text));
  return count_words(text);
}

std::vector<prepared_request> make_sharegpt_requests(const std::string& path, std::int64_t fixed_output_len,
                                                     const body_settings& body, std::size_t count, std::uint64_t seed,
                                                     const bpe_tokenizer* tokenizer) {
  const auto data = read_sharegpt_file(path);
  const auto length = [&](const std::string& text) { return text_length(text, tokenizer); };
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& entry : data) {
    if (!entry.is_object() || !entry.contains("conversations") || !entry.at("conversations").is_array()) continue;
    const auto& turns = entry.at("conversations");
    if (turns.size() < 2 || !turns.at(0).contains("value") || !turns.at(1).contains("value")) continue;
    if (!turns.at(0).at("value").is_string() || !turns.at(1).at("value").is_string()) continue;
    pairs.emplace_back(turns.at(0).at("value").get<std::string>(), turns.at(1).at("value").get<std::string>());
  }
  std::mt19937_64 random(seed);
  std::shuffle(pairs.begin(), pairs.end(), random);
  std::vector<prepared_request> out;
  for (const auto& [prompt, completion] : pairs) {
    if (out.size() >= count) break;
    const auto prompt_len = length(prompt);
    const auto output_len = fixed_output_len > 0 ? fixed_output_len : length(completion);
    if (prompt_len < 4 || output_len < 4) continue;
    if (prompt_len > 1024 || prompt_len + output_len > 2048) continue;
    prepared_request r;
    r.prompt_len = prompt_len;
    r.max_tokens = output_len;
    r.body = request_body(body, prompt, output_len);
    out.push_back(std::move(r));
  }
  if (out.empty()) throw usage_error(fmt::format("{}: no conversation passes the length filters", path));
  const std::size_t distinct = out.size();
  for (std::size_t i = 0; out.size() < count; ++i) out.push_back(out[i % distinct]);
  return out;
}

}  // namespace ironbench::serve
