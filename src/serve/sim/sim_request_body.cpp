#include "serve/sim/sim_request_body.hpp"

#include <fmt/format.h>

#include <limits>

#include "core/json_text.hpp"

namespace ironbench::serve {
namespace {

// The field's value as it came, shortened: a hostile body may hold megabytes in it.
std::string sim_field_text(const json& value) {
  auto text = core::json_text(value);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// A boolean field of `object` (absent or null: false).
bool read_sim_flag(const json& object, const char* name, const char* shown_name, std::string& error) {
  const auto it = object.find(name);
  if (it == object.end() || it->is_null()) return false;
  if (!it->is_boolean()) {
    error = fmt::format("{} must be true or false, not {}", shown_name, sim_field_text(*it));
    return false;
  }
  return it->get<bool>();
}

// A token count (an integer of at least 1), or `fallback` when absent.
std::int64_t read_sim_count(const json& object, const char* name, std::int64_t fallback, std::string& error) {
  const auto it = object.find(name);
  if (it == object.end()) return fallback;
  const bool fits = it->is_number_integer() &&
                    (!it->is_number_unsigned() ||
                     it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  if (!fits || it->get<std::int64_t>() < 1) {
    error = fmt::format("{} must be an integer of at least 1, not {}", name, sim_field_text(*it));
    return fallback;
  }
  return it->get<std::int64_t>();
}

}  // namespace

sim_body_reading read_sim_body(const json& body) {
  sim_body_reading out;
  if (!body.is_object()) {
    out.error = "the body is not a JSON object";
    return out;
  }
  auto& r = out.request;
  auto& error = out.error;
  r.stream = read_sim_flag(body, "stream", "stream", error);
  if (!error.empty()) return out;
  if (const auto it = body.find("model"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) {
      error = fmt::format("model must be a string, not {}", sim_field_text(*it));
      return out;
    }
    r.model = it->get<std::string>();
  }
  if (const auto it = body.find("stream_options"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) {
      error = fmt::format("stream_options must be an object, not {}", sim_field_text(*it));
      return out;
    }
    r.include_usage = read_sim_flag(*it, "include_usage", "stream_options.include_usage", error);
    if (!error.empty()) return out;
  }
  const auto max_tokens = read_sim_count(body, "max_tokens", r.max_tokens, error);
  if (!error.empty()) return out;
  r.max_tokens = read_sim_count(body, "max_completion_tokens", max_tokens, error);
  return out;
}

}  // namespace ironbench::serve
