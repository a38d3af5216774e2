#include "serve/client/openai_stream.hpp"

#include <simdjson.h>

#include "core/error.hpp"
#include "serve/client/utf8_repair.hpp"

namespace ironbench::serve {

namespace {

using simdjson::ondemand::json_type;

std::optional<std::int64_t> integer_of(simdjson::ondemand::value value) {
  std::int64_t n = 0;
  if (value.get_int64().get(n) != simdjson::SUCCESS) return std::nullopt;
  return n;
}

// choices[0] of a chunk: its text (or delta / message content) and finish reason.
void read_choice(simdjson::ondemand::object choice, openai_api api, openai_chunk& chunk) {
  for (auto field : choice) {
    const std::string_view key = field.unescaped_key();
    auto value = field.value();
    if (key == "finish_reason") {
      if (value.type() == json_type::string) chunk.finish_reason = std::string(std::string_view(value.get_string()));
    } else if (api == openai_api::completions && key == "text") {
      if (value.type() == json_type::string)
        chunk.text = std::string(std::string_view(value.get_string()));
      else if (value.type() != json_type::null)
        chunk.malformed = true;
    } else if (api == openai_api::chat && (key == "delta" || key == "message")) {
      if (value.type() != json_type::object) continue;
      for (auto part : value.get_object()) {
        const std::string_view name = part.unescaped_key();
        const bool content_field = name == "content";
        const auto field = name == "reasoning_content" ? reasoning_field::reasoning_content
                           : name == "reasoning"       ? reasoning_field::reasoning
                                                       : reasoning_field::none;
        if (!content_field && field == reasoning_field::none) continue;
        auto content = part.value();
        if (content.type() == json_type::string) {
          auto text = std::string(std::string_view(content.get_string()));
          if (content_field) {
            chunk.text = std::move(text);
          } else if (chunk.reasoning.empty() && !text.empty()) {
            // Servers that send both fields send the same text in each: the first is kept.
            chunk.reasoning = std::move(text);
            chunk.reasoning_from = field;
          }
        } else if (content_field && content.type() != json_type::null) {
          chunk.malformed = true;
        }
      }
    }
  }
}

}  // namespace

// simdjson's on-demand parser: a chunk is parsed ~25x faster than into a DOM, which matters
// at tens of thousands of events per second on one client thread.
openai_chunk parse_openai_chunk(std::string_view data, openai_api api) {
  openai_chunk chunk;
  while (!data.empty() && (data.front() == ' ' || data.front() == '\n' || data.front() == '\r')) data.remove_prefix(1);
  while (!data.empty() && (data.back() == ' ' || data.back() == '\n' || data.back() == '\r')) data.remove_suffix(1);
  if (data == "[DONE]") {
    chunk.done = true;
    return chunk;
  }
  // simdjson refuses invalid UTF-8 anywhere in a document: a stray byte in one token's text
  // would make the whole chunk unreadable. Such a payload is read with the bytes replaced.
  std::string repaired;
  if (!simdjson::validate_utf8(data.data(), data.size())) {
    repaired = repaired_utf8(data);
    data = repaired;
    chunk.invalid_utf8 = true;
  }
  thread_local simdjson::ondemand::parser parser;
  thread_local std::string padded;
  padded.assign(data);
  padded.append(simdjson::SIMDJSON_PADDING, ' ');
  try {
    simdjson::ondemand::document document = parser.iterate(padded.data(), data.size(), padded.size());
    simdjson::ondemand::object object = document.get_object();
    for (auto field : object) {
      const std::string_view key = field.unescaped_key();
      auto value = field.value();
      if (key == "error") {
        if (value.type() == json_type::object) {
          chunk.error = "server error";
          for (auto part : value.get_object()) {
            if (std::string_view(part.unescaped_key()) == "message" && part.value().type() == json_type::string) {
              chunk.error = std::string(std::string_view(part.value().get_string()));
            }
          }
        } else if (value.type() == json_type::string) {
          chunk.error = std::string(std::string_view(value.get_string()));
        } else {
          chunk.error = "server error";
        }
      } else if (key == "usage") {
        if (value.type() != json_type::object) continue;
        for (auto part : value.get_object()) {
          const std::string_view name = part.unescaped_key();
          if (name == "completion_tokens")
            chunk.completion_tokens = integer_of(part.value());
          else if (name == "prompt_tokens")
            chunk.prompt_tokens = integer_of(part.value());
          else if (name == "completion_tokens_details" && part.value().type() == json_type::object) {
            for (auto detail : part.value().get_object()) {
              if (std::string_view(detail.unescaped_key()) == "reasoning_tokens") {
                chunk.reasoning_tokens = integer_of(detail.value());
              }
            }
          }
        }
      } else if (key == "ironbench_sim_sent_ns") {
        // The result converts to a value only as an rvalue.
        chunk.sim_sent_ns = integer_of(std::move(value));  // NOLINT(performance-move-const-arg)
      } else if (key == "choices") {
        if (value.type() != json_type::array) {
          chunk.malformed = true;
          continue;
        }
        bool first = true;
        for (auto element : value.get_array()) {
          if (!first) continue;
          first = false;
          if (element.type() != json_type::object) {
            chunk.malformed = true;
            continue;
          }
          chunk.has_choices = true;
          read_choice(element.get_object(), api, chunk);
        }
      }
    }
  } catch (const simdjson::simdjson_error&) {
    const bool invalid_utf8 = chunk.invalid_utf8;
    chunk = openai_chunk{};
    chunk.malformed = true;
    chunk.invalid_utf8 = invalid_utf8;
  }
  // One huge chunk must not leave its buffers behind for the rest of the run.
  constexpr std::size_t kept_capacity = std::size_t{1} << 20;
  if (padded.capacity() > kept_capacity) std::string().swap(padded);
  if (parser.capacity() > kept_capacity) parser = simdjson::ondemand::parser{};
  if (!chunk.error.empty()) {
    chunk.has_choices = false;
    chunk.text.clear();
    chunk.reasoning.clear();
  }
  return chunk;
}

void request_timing::on_chunk(double time_s, const openai_chunk& chunk) {
  if (chunk.done) {
    done_ = true;
    return;
  }
  if (chunk.invalid_utf8) invalid_utf8_ = true;
  if (chunk.completion_tokens) completion_tokens_ = chunk.completion_tokens;
  if (chunk.prompt_tokens) prompt_tokens_ = chunk.prompt_tokens;
  if (chunk.reasoning_tokens) reasoning_tokens_ = chunk.reasoning_tokens;
  if (!chunk.finish_reason.empty()) finished_ = true;
  if (!chunk.has_choices) return;
  ++events_;
  if (!first_s_) {
    first_s_ = time_s;
  } else {
    itl_s_.push_back(time_s - last_s_);
  }
  last_s_ = time_s;
  if (!chunk.text.empty() || !chunk.reasoning.empty()) ++text_events_;
  reasoning_.on_event(time_s, chunk.reasoning, chunk.reasoning_from, chunk.text);
  text_bytes_ += chunk.text.size();
  if (keep_text_) text_ += chunk.text;
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
