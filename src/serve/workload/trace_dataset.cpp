#include "serve/workload/trace_dataset.hpp"

#include <fmt/format.h>

#include <cmath>
#include <random>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

[[noreturn]] void malformed(const std::string& path, std::size_t line, const std::string& what) {
  throw usage_error(fmt::format("--dataset-path {} line {}: {}", path, line, what));
}

std::int64_t whole_number(const json& j, const char* key, const std::string& path, std::size_t line) {
  const auto& v = j.at(key);
  if (!v.is_number() || v.get<double>() < 1 || v.get<double>() != std::floor(v.get<double>()) ||
      v.get<double>() > 1e9) {
    malformed(path, line, fmt::format("'{}' must be a positive whole number", key));
  }
  return v.get<std::int64_t>();
}

// The first of `keys` the line has, or nullptr.
const char* first_of(const json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (j.contains(k)) return k;
  }
  return nullptr;
}

// A block's tokens: the same hash id always gives the same tokens.
std::vector<std::int64_t> block_tokens(std::int64_t hash_id, std::int64_t size, std::int64_t vocab) {
  std::mt19937_64 random(static_cast<std::uint64_t>(hash_id) * 0x9E3779B97F4A7C15ULL + 1);
  std::uniform_int_distribution<std::int64_t> token(100, vocab - 1);
  std::vector<std::int64_t> tokens(static_cast<std::size_t>(size));
  for (auto& t : tokens) t = token(random);
  return tokens;
}

}  // namespace

std::vector<trace_entry> read_trace(const std::string& path, std::size_t max_entries) {
  // Line by line, each line within core::max_line_bytes, only as far as the entries wanted.
  core::bounded_reader in(path, core::file_kinds::dataset);
  std::vector<trace_entry> trace;
  std::string text;
  while (trace.size() < max_entries && in.next_line(text)) {
    const auto line = static_cast<std::size_t>(in.line_number());
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) malformed(path, line, "not a JSON object");
    trace_entry e;
    if (j.contains("timestamp") && j.at("timestamp").is_number()) {
      e.at_s = j.at("timestamp").get<double>() / 1e3;  // Mooncake: milliseconds
    } else if (j.contains("time_s") && j.at("time_s").is_number()) {
      e.at_s = j.at("time_s").get<double>();
    } else {
      malformed(path, line, "no arrival time ('timestamp' in ms or 'time_s')");
    }
    if (!std::isfinite(e.at_s) || e.at_s < 0) malformed(path, line, "the arrival time must be a non-negative number");
    if (!trace.empty() && e.at_s < trace.back().at_s) malformed(path, line, "arrival times must not go backwards");
    if (const char* key = first_of(j, {"output_length", "output_len"})) {
      e.output_len = whole_number(j, key, path, line);
    } else {
      malformed(path, line, "no 'output_length' (or 'output_len')");
    }
    if (j.contains("prompt")) {
      if (!j.at("prompt").is_string()) malformed(path, line, "'prompt' must be a string");
      e.prompt = j.at("prompt").get<std::string>();
      e.input_len = count_words(*e.prompt);
    } else if (const char* key = first_of(j, {"input_length", "input_len"})) {
      e.input_len = whole_number(j, key, path, line);
    } else {
      malformed(path, line, "no 'input_length' (or 'input_len', or 'prompt')");
    }
    if (j.contains("hash_ids")) {
      if (!j.at("hash_ids").is_array()) malformed(path, line, "'hash_ids' must be a list of integers");
      for (const auto& h : j.at("hash_ids")) {
        if (!h.is_number_integer()) malformed(path, line, "'hash_ids' must be a list of integers");
        e.hash_ids.push_back(h.get<std::int64_t>());
      }
    }
    trace.push_back(std::move(e));
  }
  if (trace.empty()) throw usage_error(fmt::format("--dataset-path {}: the trace has no request", path));
  return trace;
}

std::vector<prepared_request> make_trace_requests(const std::vector<trace_entry>& trace, const trace_options& o,
                                                  const body_settings& body, std::size_t count) {
  if (o.block_size < 1) throw usage_error("--trace-block-size must be at least 1");
  const auto n = std::min(count, trace.size());
  std::vector<prepared_request> out;
  out.reserve(n);
  std::mt19937_64 random(0x7ace);
  std::uniform_int_distribution<std::int64_t> token(100, o.vocab_size - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = trace[i];
    prepared_request r;
    r.send_at_s = e.at_s - trace.front().at_s;
    r.max_tokens = e.output_len;
    r.prompt_len = e.input_len;
    if (e.prompt) {
      r.body = request_body(body, *e.prompt, e.output_len);
      out.push_back(std::move(r));
      continue;
    }
    // Blocks of the hash ids, then random tokens up to the length (a trace's last block is partial).
    std::vector<std::int64_t> ids;
    ids.reserve(static_cast<std::size_t>(e.input_len));
    for (const auto h : e.hash_ids) {
      if (static_cast<std::int64_t>(ids.size()) >= e.input_len) break;
      for (const auto t : block_tokens(h, o.block_size, o.vocab_size)) {
        if (static_cast<std::int64_t>(ids.size()) >= e.input_len) break;
        ids.push_back(t);
      }
    }
    while (static_cast<std::int64_t>(ids.size()) < e.input_len) ids.push_back(token(random));
    if (body.api == openai_api::completions) {
      r.body = request_body(body, ids, e.output_len);
    } else {
      std::string text;
      for (const auto t : ids) text += one_token_words[static_cast<std::size_t>(t) % std::size(one_token_words)];
      r.body = request_body(body, text, e.output_len);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ironbench::serve
