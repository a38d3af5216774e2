#include "serve/sim/sim_server.hpp"

#include <fmt/format.h>

#include <csignal>

#include "core/error.hpp"
#include "core/json.hpp"
#include "serve/common/text_units.hpp"
#include "serve/sim/sim_http_server.hpp"

namespace ironbench::serve {

const std::vector<sim_fault_entry>& sim_faults() {
  static const std::vector<sim_fault_entry> table = {
      {sim_fault::none, "none", "no fault"},
      {sim_fault::http_429, "http-429", "HTTP 429 Too Many Requests"},
      {sim_fault::http_500, "http-500", "HTTP 500 Internal Server Error"},
      {sim_fault::truncate, "truncate", "the connection closed after 2 tokens"},
      {sim_fault::end_early, "end-early",
       "the stream ended cleanly after 2 tokens, without a finish_reason, usage or [DONE]"},
      {sim_fault::malformed, "malformed", "a chunk that is not JSON"},
      {sim_fault::stall, "stall", "no more bytes after the first token, the connection left open"},
      {sim_fault::invalid_utf8, "invalid-utf8", "a raw 0xFF byte in the second token's text"},
      {sim_fault::huge_chunk, "huge-chunk", "a second token of --fault-bytes bytes of text"},
      {sim_fault::usage_negative, "usage-negative", "usage.completion_tokens -5"},
      {sim_fault::usage_huge, "usage-huge", "usage.completion_tokens 10^18"},
      {sim_fault::html_200, "html-200", "an HTML error page with status 200"},
      {sim_fault::wrong_output, "wrong-output",
       "output token --fault-token's leading space becomes '~' (a wrong answer, no error)"},
  };
  return table;
}

const char* to_string(sim_fault fault) {
  for (const auto& entry : sim_faults()) {
    if (entry.fault == fault) return entry.name;
  }
  return "none";
}

sim_fault sim_fault_from_string(const std::string& name) {
  std::vector<std::string_view> names;
  for (const auto& entry : sim_faults()) {
    if (name == entry.name) return entry.fault;
    names.emplace_back(entry.name);
  }
  throw usage_error(fmt::format("unknown fault '{}' ({})", name, fmt::join(names, ", ")));
}

std::string sim_fault_help() {
  std::vector<std::string> items;
  for (const auto& entry : sim_faults()) {
    if (entry.fault != sim_fault::none) items.push_back(fmt::format("{} ({})", entry.name, entry.effect));
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

std::int64_t sim_prompt_tokens(const std::string& body_json) {
  const auto j = json::parse(body_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return 0;
  if (j.contains("prompt")) {
    const auto& p = j.at("prompt");
    if (p.is_array()) {
      if (!p.empty() && p.at(0).is_array()) return static_cast<std::int64_t>(p.at(0).size());  // batch of id lists
      if (!p.empty() && p.at(0).is_string()) return count_words(p.at(0).get<std::string>());
      return static_cast<std::int64_t>(p.size());
    }
    if (p.is_string()) return count_words(p.get<std::string>());
  }
  std::int64_t words = 0;
  if (j.contains("messages") && j.at("messages").is_array()) {
    for (const auto& m : j.at("messages")) {
      if (m.is_object() && m.contains("content") && m.at("content").is_string()) {
        words += count_words(m.at("content").get<std::string>());
      }
    }
  }
  return words;
}

void run_sim_server(const sim_server_settings& settings, const std::atomic<bool>& stop,
                    const std::function<void(int port)>& on_listening) {
  raise_open_file_limit();  // thousands of concurrent streams need thousands of sockets
  // A client that goes away mid-stream is an error on that socket, not the end of the server.
  std::signal(SIGPIPE, SIG_IGN);
  sim_http_server server(settings);
  server.run(stop, on_listening);
}

}  // namespace ironbench::serve
