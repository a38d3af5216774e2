#include "serve/openai_stream.hpp"

#include "core/json.hpp"
#include "core/error.hpp"

namespace ironbench::serve {

openai_chunk parse_openai_chunk(std::string_view data, openai_api api) {
  openai_chunk chunk;
  const auto trimmed = [&] {
    auto d = data;
    while (!d.empty() && (d.front() == ' ' || d.front() == '\n' || d.front() == '\r')) d.remove_prefix(1);
    while (!d.empty() && (d.back() == ' ' || d.back() == '\n' || d.back() == '\r')) d.remove_suffix(1);
    return d;
  }();
  if (trimmed == "[DONE]") {
    chunk.done = true;
    return chunk;
  }
  const auto j = json::parse(trimmed.begin(), trimmed.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    chunk.malformed = true;
    return chunk;
  }
  if (j.contains("error")) {
    const auto& e = j.at("error");
    chunk.error = e.is_object() ? e.value("message", e.dump()) : (e.is_string() ? e.get<std::string>() : e.dump());
    return chunk;
  }
  if (j.contains("usage") && j.at("usage").is_object()) {
    const auto& u = j.at("usage");
    if (u.contains("completion_tokens") && u.at("completion_tokens").is_number_integer()) {
      chunk.completion_tokens = u.at("completion_tokens").get<std::int64_t>();
    }
    if (u.contains("prompt_tokens") && u.at("prompt_tokens").is_number_integer()) {
      chunk.prompt_tokens = u.at("prompt_tokens").get<std::int64_t>();
    }
  }
  if (!j.contains("choices")) return chunk;
  const auto& choices = j.at("choices");
  if (!choices.is_array()) {
    chunk.malformed = true;
    return chunk;
  }
  if (choices.empty()) return chunk;
  const auto& first = choices.at(0);
  if (!first.is_object()) {
    chunk.malformed = true;
    return chunk;
  }
  chunk.has_choices = true;
  if (first.contains("finish_reason") && first.at("finish_reason").is_string()) {
    chunk.finish_reason = first.at("finish_reason").get<std::string>();
  }
  const json* text = nullptr;
  if (api == openai_api::completions) {
    if (first.contains("text")) text = &first.at("text");
  } else {
    const char* part = first.contains("delta") ? "delta" : "message";  // streaming, non-streaming
    if (first.contains(part) && first.at(part).is_object() && first.at(part).contains("content")) {
      text = &first.at(part).at("content");
    }
  }
  if (text != nullptr && text->is_string()) chunk.text = text->get<std::string>();
  else if (text != nullptr && !text->is_null()) chunk.malformed = true;
  return chunk;
}

void request_timing::on_chunk(double time_s, const openai_chunk& chunk) {
  if (chunk.done) {
    done_ = true;
    return;
  }
  if (chunk.completion_tokens) completion_tokens_ = chunk.completion_tokens;
  if (chunk.prompt_tokens) prompt_tokens_ = chunk.prompt_tokens;
  if (!chunk.has_choices) return;
  ++events_;
  if (!first_s_) {
    first_s_ = time_s;
  } else {
    itl_s_.push_back(time_s - last_s_);
  }
  last_s_ = time_s;
  text_ += chunk.text;
}

double request_timing::ttft_s() const {
  IRONBENCH_CHECK(first_s_.has_value(), "no token event yet");
  return *first_s_ - send_s_;
}

double request_timing::e2el_s() const {
  IRONBENCH_CHECK(first_s_.has_value(), "no token event yet");
  return last_s_ - send_s_;
}

}  // namespace ironbench::serve
