#include "serve/measures/reasoning_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/statistics.hpp"

namespace ironbench::serve {
namespace {

// mean/median/std and the selected percentiles of `ms` (none when it is empty).
void add_ms_statistics(json& out, const std::string& metric, const std::vector<double>& ms,
                       const metric_selection& selection) {
  if (ms.empty()) return;
  out[fmt::format("mean_{}_ms", metric)] = core::mean(ms);
  out[fmt::format("median_{}_ms", metric)] = core::percentile(ms, 50);
  out[fmt::format("std_{}_ms", metric)] = core::population_stddev(ms);
  for (double p : selection.percentiles) out[percentile_key(p, metric)] = core::percentile(ms, p);
}

}  // namespace

std::int64_t tokenizer_output_tokens(const request_timing& timing, const bpe_tokenizer& tokenizer) {
  return static_cast<std::int64_t>(tokenizer.count(timing.reasoning().field_text()) + tokenizer.count(timing.text()));
}

reasoning_record measure_reasoning(const request_timing& timing, std::int64_t output_tokens,
                                   const bpe_tokenizer* tokenizer) {
  reasoning_record r;
  const auto& split = timing.reasoning();
  if (split.first_answer_s()) r.ttft_answer_s = *split.first_answer_s() - timing.send_s();
  const auto reported = timing.usage_reasoning_tokens();
  const bool usage_split = reported && *reported > 0 && *reported <= output_tokens;
  if (!split.saw_reasoning() && !usage_split) return r;
  r.style = split.saw_reasoning() ? split.style() : "usage";
  if (split.first_reasoning_s()) r.ttft_reasoning_s = *split.first_reasoning_s() - timing.send_s();
  if (usage_split) {
    r.reasoning_tokens = *reported;
    r.answer_tokens = output_tokens - *reported;
    r.token_source = "usage";
  } else if (tokenizer != nullptr && timing.keeps_text()) {
    const std::string_view content = timing.text();
    const auto cut = std::min(split.content_reasoning_bytes(), content.size());
    r.reasoning_tokens =
        static_cast<std::int64_t>(tokenizer->count(split.field_text()) + tokenizer->count(content.substr(0, cut)));
    r.answer_tokens = static_cast<std::int64_t>(tokenizer->count(content.substr(cut)));
    r.token_source = "tokenizer";
  } else {
    r.reasoning_tokens = static_cast<std::int64_t>(split.reasoning_events());
    r.answer_tokens = static_cast<std::int64_t>(split.answer_events());
    r.token_source = "events";
  }
  return r;
}

json reasoning_metrics(const std::vector<request_record>& records, const metric_selection& selection) {
  std::size_t with_reasoning = 0;
  std::int64_t reasoning_tokens = 0, answer_tokens = 0;
  std::map<std::string, std::size_t> styles, sources;
  std::vector<double> first_reasoning_ms, first_answer_ms, answer_tpot_ms;
  for (const auto& r : records) {
    if (!r.success) continue;
    const auto& q = r.reasoning;
    const std::int64_t answer = q.present() ? q.answer_tokens : r.output_len;
    answer_tokens += answer;
    if (q.ttft_answer_s) {
      first_answer_ms.push_back(*q.ttft_answer_s * 1e3);
      if (answer > 1) answer_tpot_ms.push_back((r.e2el_s - *q.ttft_answer_s) * 1e3 / static_cast<double>(answer - 1));
    }
    if (!q.present()) continue;
    ++with_reasoning;
    reasoning_tokens += q.reasoning_tokens;
    ++styles[q.style];
    ++sources[q.token_source];
    if (q.ttft_reasoning_s) first_reasoning_ms.push_back(*q.ttft_reasoning_s * 1e3);
  }
  json out = json::object();
  if (with_reasoning == 0) return out;
  out["requests_with_reasoning"] = with_reasoning;
  out["total_reasoning_tokens"] = reasoning_tokens;
  out["total_answer_tokens"] = answer_tokens;
  out["reasoning_styles"] = styles;
  out["reasoning_token_sources"] = sources;
  out["tpot_itl_tokens"] = "reasoning+answer";
  add_ms_statistics(out, "ttft_reasoning", first_reasoning_ms, selection);
  add_ms_statistics(out, "ttft_answer", first_answer_ms, selection);
  add_ms_statistics(out, "answer_tpot", answer_tpot_ms, selection);
  return out;
}

std::string reasoning_summary(const json& m, const metric_selection& selection) {
  if (!m.contains("requests_with_reasoning")) return "";
  std::string out = fmt::format("{:-^50}\n", "Reasoning");
  auto line = [&](const std::string& label, const std::string& value) {
    out += fmt::format("{:<40}{:<10}\n", label, value);
  };
  line("Requests with reasoning:", fmt::format("{} of {}", m.at("requests_with_reasoning").get<std::size_t>(),
                                               m.value("completed", std::size_t{0})));
  std::string sources;
  for (const auto& [source, n] : m.at("reasoning_token_sources").items()) {
    sources += fmt::format("{}{} in {}", sources.empty() ? "" : ", ", source, n.get<std::size_t>());
  }
  line("Reasoning / answer tokens:",
       fmt::format("{} / {} (counted by {})", m.at("total_reasoning_tokens").get<std::int64_t>(),
                   m.at("total_answer_tokens").get<std::int64_t>(), sources));
  for (const auto& [metric, name] : {std::pair<const char*, const char*>{"ttft_reasoning", "TTFT reasoning"},
                                     {"ttft_answer", "TTFT answer"},
                                     {"answer_tpot", "Answer TPOT"}}) {
    const auto median = fmt::format("median_{}_ms", metric);
    if (!m.contains(median)) continue;
    std::string value = fmt::format("{:.2f}", m.at(median).get<double>());
    std::string label = fmt::format("{} median", name);
    for (double p : selection.percentiles) {
      const auto key = percentile_key(p, metric);
      if (!m.contains(key)) continue;
      label += fmt::format(" / P{:g}", p);
      value += fmt::format(" / {:.2f}", m.at(key).get<double>());
    }
    line(label + " (ms):", value);
  }
  out += "TPOT and ITL count reasoning and answer tokens (tpot_itl_tokens)\n";
  return out;
}

}  // namespace ironbench::serve
