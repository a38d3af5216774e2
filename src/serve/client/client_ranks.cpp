#include "serve/client/client_ranks.hpp"

#include <algorithm>

namespace ironbench::serve {

bool client_ranks::rank0_says(bool flag) const {
  if (!several()) return flag;
  return sum(rank == 0 && flag ? 1.0 : 0.0) > 0.5;
}

bool client_ranks::any(bool flag) const {
  if (!several()) return flag;
  return sum(flag ? 1.0 : 0.0) > 0.5;
}

int concurrency_share(int total, int rank, int size) {
  if (total <= 0 || size <= 1) return total;
  return total / size + (rank < total % size ? 1 : 0);
}

namespace {

json record_json(const request_record& r) {
  json j = {{"success", r.success},
            {"error_class", r.error_class},
            {"error", r.error},
            {"prompt_len", r.prompt_len},
            {"output_len", r.output_len},
            {"ttft_s", r.ttft_s},
            {"e2el_s", r.e2el_s},
            {"itl_s", r.itl_s},
            {"scheduled_s", r.scheduled_s},
            {"sent_s", r.sent_s},
            {"endpoint", r.endpoint},
            {"text", r.generated_text}};
  if (r.usage_output_tokens) j["usage"] = *r.usage_output_tokens;
  if (r.usage_prompt_tokens) j["usage_prompt"] = *r.usage_prompt_tokens;
  if (r.images > 0) j["images"] = r.images;
  if (r.pooled) j["pooled"] = true;
  if (r.tokenizer_output_tokens) j["counted"] = *r.tokenizer_output_tokens;
  if (!r.usage_problem.empty()) j["usage_problem"] = r.usage_problem;
  if (r.invalid_utf8) j["invalid_utf8"] = true;
  if (r.text_not_kept) j["text_not_kept"] = true;
  if (!r.prompt_hash.empty()) j["prompt_hash"] = r.prompt_hash;
  if (!r.adapter.empty()) j["adapter"] = r.adapter;
  const auto& q = r.reasoning;
  if (q.ttft_answer_s) j["ttft_answer_s"] = *q.ttft_answer_s;
  if (q.present()) {
    j["reasoning"] = {{"style", q.style},
                      {"reasoning_tokens", q.reasoning_tokens},
                      {"answer_tokens", q.answer_tokens},
                      {"token_source", q.token_source}};
    if (q.ttft_reasoning_s) j["reasoning"]["ttft_reasoning_s"] = *q.ttft_reasoning_s;
  }
  return j;
}

request_record record_from_json(const json& j) {
  request_record r;
  r.success = j.at("success").get<bool>();
  r.error_class = j.at("error_class").get<std::string>();
  r.error = j.at("error").get<std::string>();
  r.prompt_len = j.at("prompt_len").get<std::int64_t>();
  r.output_len = j.at("output_len").get<std::int64_t>();
  r.ttft_s = j.at("ttft_s").get<double>();
  r.e2el_s = j.at("e2el_s").get<double>();
  r.itl_s = j.at("itl_s").get<std::vector<double>>();
  r.scheduled_s = j.at("scheduled_s").get<double>();
  r.sent_s = j.at("sent_s").get<double>();
  r.endpoint = j.at("endpoint").get<std::string>();
  r.generated_text = j.at("text").get<std::string>();
  if (j.contains("usage")) r.usage_output_tokens = j.at("usage").get<std::int64_t>();
  if (j.contains("usage_prompt")) r.usage_prompt_tokens = j.at("usage_prompt").get<std::int64_t>();
  r.images = j.value("images", 0);
  r.pooled = j.value("pooled", false);
  if (j.contains("counted")) r.tokenizer_output_tokens = j.at("counted").get<std::int64_t>();
  r.usage_problem = j.value("usage_problem", "");
  r.invalid_utf8 = j.value("invalid_utf8", false);
  r.text_not_kept = j.value("text_not_kept", false);
  r.prompt_hash = j.value("prompt_hash", "");
  r.adapter = j.value("adapter", "");
  if (j.contains("ttft_answer_s")) r.reasoning.ttft_answer_s = j.at("ttft_answer_s").get<double>();
  if (j.contains("reasoning")) {
    const auto& q = j.at("reasoning");
    r.reasoning.style = q.at("style").get<std::string>();
    r.reasoning.reasoning_tokens = q.at("reasoning_tokens").get<std::int64_t>();
    r.reasoning.answer_tokens = q.at("answer_tokens").get<std::int64_t>();
    r.reasoning.token_source = q.at("token_source").get<std::string>();
    if (q.contains("ttft_reasoning_s")) r.reasoning.ttft_reasoning_s = q.at("ttft_reasoning_s").get<double>();
  }
  return r;
}

}  // namespace

json load_result_json(const load_result& r) {
  json records = json::array();
  for (const auto& record : r.records) records.push_back(record_json(record));
  json j = {{"records", records},
            {"duration_s", r.duration_s},
            {"first_send_s", r.first_send_s},
            {"origin_unix_s", r.origin_unix_s},
            {"origin_monotonic_ns", r.origin_monotonic_ns},
            {"lateness_p50_ms", r.lateness_p50_ms},
            {"lateness_p99_ms", r.lateness_p99_ms},
            {"lateness_max_ms", r.lateness_max_ms},
            {"lateness_limit_ms", r.lateness_limit_ms},
            {"lateness_limit_basis", r.lateness_limit_basis},
            {"client_cpu", r.client_cpu},
            {"kernel_stamped_share", r.kernel_stamped_share},
            {"socket_wait_p50_ms", r.socket_wait_p50_ms},
            {"socket_wait_p99_ms", r.socket_wait_p99_ms},
            {"token_events_timed_together", r.token_events_timed_together},
            {"valid", r.valid},
            {"invalid_reason", r.invalid_reason},
            {"interrupted", r.interrupted},
            {"not_sent", r.not_sent},
            {"ground_truth", r.ground_truth}};
  if (r.host_steal_percent) j["host_steal_percent"] = *r.host_steal_percent;
  if (r.host_others_percent) j["host_others_percent"] = *r.host_others_percent;
  if (r.embedding_dimension > 0) j["embedding_dimension"] = r.embedding_dimension;
  return j;
}

load_result load_result_from_json(const json& j) {
  load_result r;
  for (const auto& record : j.at("records")) r.records.push_back(record_from_json(record));
  r.duration_s = j.at("duration_s").get<double>();
  r.first_send_s = j.at("first_send_s").get<double>();
  r.origin_unix_s = j.at("origin_unix_s").get<double>();
  r.origin_monotonic_ns = j.at("origin_monotonic_ns").get<std::int64_t>();
  r.lateness_p50_ms = j.at("lateness_p50_ms").get<double>();
  r.lateness_p99_ms = j.at("lateness_p99_ms").get<double>();
  r.lateness_max_ms = j.at("lateness_max_ms").get<double>();
  r.lateness_limit_ms = j.at("lateness_limit_ms").get<double>();
  r.lateness_limit_basis = j.at("lateness_limit_basis").get<std::string>();
  r.client_cpu = j.at("client_cpu").get<double>();
  r.kernel_stamped_share = j.at("kernel_stamped_share").get<double>();
  r.socket_wait_p50_ms = j.at("socket_wait_p50_ms").get<double>();
  r.socket_wait_p99_ms = j.at("socket_wait_p99_ms").get<double>();
  r.token_events_timed_together = j.at("token_events_timed_together").get<std::size_t>();
  r.valid = j.at("valid").get<bool>();
  r.invalid_reason = j.at("invalid_reason").get<std::string>();
  r.interrupted = j.at("interrupted").get<bool>();
  r.not_sent = j.at("not_sent").get<std::size_t>();
  r.ground_truth = j.at("ground_truth");
  if (j.contains("host_steal_percent")) r.host_steal_percent = j.at("host_steal_percent").get<double>();
  if (j.contains("host_others_percent")) r.host_others_percent = j.at("host_others_percent").get<double>();
  r.embedding_dimension = j.value("embedding_dimension", std::size_t{0});
  return r;
}

load_result merge_rank_results(const std::vector<load_result>& results, const std::vector<std::string>& base_urls) {
  if (results.empty()) return {};
  load_result merged = results.front();  // rank 0's clock, ground truth and limit basis
  merged.records.clear();
  merged.ranks = json::array();
  double first = 0, last = 0;
  bool any = false;
  for (std::size_t rank = 0; rank < results.size(); ++rank) {
    const auto& r = results[rank];
    const double offset = r.origin_unix_s - results.front().origin_unix_s;
    for (auto record : r.records) {
      record.scheduled_s += offset;
      record.sent_s += offset;
      merged.records.push_back(std::move(record));
    }
    if (!r.records.empty()) {
      const double begin = offset + r.first_send_s, end = begin + r.duration_s;
      first = any ? std::min(first, begin) : begin;
      last = any ? std::max(last, end) : end;
      any = true;
    }
    merged.lateness_p50_ms = std::max(merged.lateness_p50_ms, r.lateness_p50_ms);
    merged.lateness_p99_ms = std::max(merged.lateness_p99_ms, r.lateness_p99_ms);
    merged.lateness_max_ms = std::max(merged.lateness_max_ms, r.lateness_max_ms);
    merged.client_cpu = std::max(merged.client_cpu, r.client_cpu);
    merged.socket_wait_p99_ms = std::max(merged.socket_wait_p99_ms, r.socket_wait_p99_ms);
    if (rank > 0) merged.token_events_timed_together += r.token_events_timed_together;
    merged.not_sent += rank > 0 ? r.not_sent : 0;
    merged.interrupted = merged.interrupted || r.interrupted;
    if (merged.valid && !r.valid) {
      merged.valid = false;
      merged.invalid_reason = "rank " + std::to_string(rank) + ": " + r.invalid_reason;
    }
    json entry = {{"rank", rank},
                  {"requests", r.records.size()},
                  {"start_offset_ms", offset * 1e3},
                  {"send_lateness_p50_ms", r.lateness_p50_ms},
                  {"send_lateness_p99_ms", r.lateness_p99_ms},
                  {"client_cpu_percent", 100 * r.client_cpu},
                  {"valid", r.valid}};
    if (r.host_others_percent) entry["host_others_cpu_percent"] = *r.host_others_percent;
    if (r.host_steal_percent) entry["host_steal_percent"] = *r.host_steal_percent;
    merged.ranks.push_back(std::move(entry));
  }
  std::stable_sort(merged.records.begin(), merged.records.end(),
                   [](const request_record& a, const request_record& b) { return a.scheduled_s < b.scheduled_s; });
  merged.first_send_s = first;
  merged.duration_s = any ? last - first : 0;
  merged.endpoints = endpoint_breakdown(merged.records, base_urls);
  return merged;
}

}  // namespace ironbench::serve
