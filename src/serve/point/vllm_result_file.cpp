#include "serve/point/vllm_result_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <system_error>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/output_file.hpp"
#include "schema/serving.hpp"
#include "serve/point/serve_report.hpp"

namespace ironbench::serve {

json vllm_point_json(const point_description& p, const json& metrics, const load_result& result) {
  namespace key = schema::vllm_key;
  json vllm = {{key::date, p.date},
               {key::backend, p.api == openai_api::chat ? "openai-chat" : "openai"},
               {key::model_id, p.model},
               {key::tokenizer_id, p.tokenizer.empty() ? json(nullptr) : json(p.tokenizer)},
               {key::num_prompts, p.num_prompts},
               {key::request_rate, std::isinf(p.request_rate) ? json("inf") : json(p.request_rate)},
               {key::burstiness, p.burstiness},
               {key::max_concurrency, p.max_concurrency > 0 ? json(p.max_concurrency) : json(nullptr)}};
  for (const auto& [name, value] : metrics.items()) vllm[name] = value;
  vllm[key::client] = {
      {"send_lateness_p50_ms", result.lateness_p50_ms},
      {"send_lateness_p99_ms", result.lateness_p99_ms},
      {"send_lateness_max_ms", result.lateness_max_ms},
      {"send_lateness_limit_ms", result.lateness_limit_ms},
      {"send_lateness_limit_basis", result.lateness_limit_basis},
      {"host_steal_percent", result.host_steal_percent ? json(*result.host_steal_percent) : json()},
      {"host_others_cpu_percent", result.host_others_percent ? json(*result.host_others_percent) : json()},
      {"cpu_share_of_one_core", result.client_cpu},
      {"kernel_receive_stamp_share", result.kernel_stamped_share},
      {"socket_wait_p50_ms", result.socket_wait_p50_ms},
      {"socket_wait_p99_ms", result.socket_wait_p99_ms},
      {"token_events_read_with_a_later_one", result.token_events_timed_together},
      {key::client_valid, result.valid},
      {key::client_invalid_reason, result.invalid_reason},
      {"interrupted", result.interrupted},
      {"not_sent", result.not_sent}};
  vllm["endpoints"] = result.endpoints;
  if (!result.ground_truth.empty()) vllm[key::client]["ground_truth"] = result.ground_truth;
  vllm["token_counts"] = !p.tokenizer.empty()
                             ? "output tokens from usage.completion_tokens, else from the tokenizer; "
                               "output_token_count_mismatches counts requests where the two differ; "
                               "implausible usage is replaced by the tokenizer's count"
                             : "output tokens from usage.completion_tokens; without usage, the count of token "
                               "events with text (approximate: no --tokenizer); prompt lengths of text prompts "
                               "are word counts (approximate); implausible usage is replaced by the count of "
                               "token events with text";
  return vllm;
}

std::string result_file_name(const json& point, double request_rate, int max_concurrency, const std::string& date) {
  return fmt::format("{}-{}qps-c{}-{}.json", point.at(schema::vllm_key::backend).get<std::string>(),
                     schema::request_rate_text(request_rate),
                     max_concurrency > 0 ? fmt::format("{:g}", static_cast<double>(max_concurrency)) : "inf", date);
}

void prepare_result_dir(const result_file_options& options) {
  if (!options.save_result) return;
  std::error_code ec;
  std::filesystem::create_directories(options.result_dir, ec);
  if (ec) throw usage_error(fmt::format("cannot create --result-dir {}: {}", options.result_dir, ec.message()));
}

std::filesystem::path write_result_file(const json& point, const load_result& result,
                                        const result_file_options& options, const std::string& name) {
  auto file = point;
  if (options.save_detailed) {
    const auto detailed = detailed_arrays(result.records);
    for (const auto& [key, value] : detailed.items()) file[key] = value;
    // Each request's prompt identity, beside its text: what --check-outputs matches on.
    json hashes = json::array();
    for (const auto& r : result.records) hashes.push_back(r.prompt_hash);
    file["prompt_hashes"] = std::move(hashes);
  }
  const auto path = std::filesystem::path(options.result_dir) / name;
  core::write_output_file(path.string(), core::json_text(file, 2) + "\n");
  if (options.save_detailed) {
    core::write_output_file(path.string() + ".requests.jsonl", request_records_jsonl(result.records));
  }
  return path;
}

}  // namespace ironbench::serve
