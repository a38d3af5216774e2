#include "experiment/service_readiness.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/json.hpp"
#include "core/json_text.hpp"
#include "experiment/http_probe.hpp"
#include "experiment/log_pattern.hpp"

namespace ironbench::experiment {
namespace {

std::string reply_problem(const std::string& what, const http_reply& reply) {
  if (!reply.error.empty()) return fmt::format("{}: {}", what, reply.error);
  if (reply.status != 200) {
    return fmt::format("{}: HTTP {}{}", what, reply.status, reply.body.empty() ? "" : ": " + reply.body.substr(0, 200));
  }
  return "";
}

// The model to ask for: `wanted` when /v1/models lists it, the first listed when `wanted` is "".
std::string listed_model(const std::string& body, const std::string& wanted, std::string& problem) {
  const auto doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("data") || !doc["data"].is_array()) {
    problem = "GET /v1/models: the reply is not an OpenAI model list";
    return "";
  }
  std::vector<std::string> ids;
  for (const auto& m : doc["data"]) {
    if (m.is_object() && m.contains("id") && m["id"].is_string()) ids.push_back(m["id"].get<std::string>());
  }
  if (ids.empty()) {
    problem = "GET /v1/models lists no model yet";
    return "";
  }
  if (wanted.empty()) return ids.front();
  for (const auto& id : ids) {
    if (id == wanted) return id;
  }
  problem = fmt::format("GET /v1/models does not list '{}' (it lists '{}')", wanted, ids.front());
  return "";
}

std::string completion_problem(const std::string& base, const std::string& model, double timeout_s) {
  json body = {{"model", model}, {"prompt", "Hello"}, {"max_tokens", 1}, {"stream", false}};
  auto reply = http_request(base + "/v1/completions", core::json_text(body), timeout_s);
  if (reply.error.empty() && reply.status == 404) {
    // Chat-only servers: the same one token through the chat API.
    body = {{"model", model},
            {"messages", json::array({{{"role", "user"}, {"content", "Hello"}}})},
            {"max_tokens", 1},
            {"stream", false}};
    reply = http_request(base + "/v1/chat/completions", core::json_text(body), timeout_s);
  }
  auto problem = reply_problem("one-token completion", reply);
  if (!problem.empty()) return problem;
  const auto doc = json::parse(reply.body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("choices") || !doc["choices"].is_array() ||
      doc["choices"].empty()) {
    return "one-token completion: the reply has no choices";
  }
  return "";
}

std::string log_problem(const std::string& pattern, const std::string& log_path) {
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  const log_pattern ready(pattern, "ready.log");
  return ready.found_in(text.str()) ? "" : fmt::format("no log line matches /{}/", pattern);
}

}  // namespace

std::string readiness_problem(const planned_step& step, const std::string& log_path, double request_timeout_s) {
  if (!step.ready_log_regex.empty()) {
    auto problem = log_problem(step.ready_log_regex, log_path);
    if (!problem.empty()) return problem;
  }
  if (step.ready_url.empty()) return "";
  auto base = step.ready_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto models = http_request(base + "/v1/models", "", request_timeout_s);
  auto problem = reply_problem("GET " + base + "/v1/models", models);
  if (!problem.empty()) return problem;
  const auto model = listed_model(models.body, step.ready_model, problem);
  if (model.empty()) return problem;
  return completion_problem(base, model, request_timeout_s);
}

}  // namespace ironbench::experiment
