#include "serve/dataset_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

std::vector<prepared_request> random_rows(const dataset_inputs& in) {
  auto dataset = in.options.random;
  dataset.vocab_size = in.vocab_size;
  return make_random_requests(dataset, in.body, in.count, in.seed);
}

std::vector<prepared_request> sharegpt_rows(const dataset_inputs& in) {
  if (in.options.multi_turn) {
    const auto conversations =
        read_sharegpt_conversations(in.path, in.options.sharegpt_output_len, in.count, in.seed, in.tokenizer);
    return conversation_requests(conversations, in.body, in.options.conversation.think_s);
  }
  return make_sharegpt_requests(in.path, in.options.sharegpt_output_len, in.body, in.count, in.seed, in.tokenizer);
}

std::vector<prepared_request> custom_rows(const dataset_inputs& in) {
  return make_custom_requests(in.path, in.options.custom_output_len, in.body, in.count);
}

std::vector<prepared_request> prefix_repetition_rows(const dataset_inputs& in) {
  auto dataset = in.options.prefix_repetition;
  dataset.vocab_size = in.vocab_size;
  return make_prefix_repetition_requests(dataset, in.body, in.count, in.seed);
}

std::vector<prepared_request> conversation_rows(const dataset_inputs& in) {
  const auto& settings = in.options.conversation;
  return conversation_requests(make_synthetic_conversations(settings, in.count, in.seed), in.body, settings.think_s);
}

std::vector<prepared_request> trace_rows(const dataset_inputs& in) {
  auto options = in.options.trace;
  options.vocab_size = in.vocab_size;
  return make_trace_requests(read_trace(in.path), options, in.body, in.count);
}

}  // namespace

const std::vector<dataset_entry>& serving_datasets() {
  static const std::vector<dataset_entry> table = {
      {"random", "", false, random_rows},
      {"sharegpt", "", true, sharegpt_rows},
      {"custom", "JSONL of {\"prompt\": ...}", true, custom_rows},
      {"prefix_repetition", "", false, prefix_repetition_rows},
      {"conversation", "", false, conversation_rows},
      {"trace", "JSONL replayed at its times: Mooncake's or {\"time_s\", \"input_len\", \"output_len\"}", true,
       trace_rows},
  };
  return table;
}

const dataset_entry& dataset_named(const std::string& name) {
  const auto& table = serving_datasets();
  const auto it = std::find_if(table.begin(), table.end(), [&](const dataset_entry& e) { return e.name == name; });
  if (it != table.end()) return *it;
  std::vector<std::string_view> names;
  for (const auto& e : table) names.push_back(e.name);
  throw usage_error(fmt::format("--dataset-name '{}' is not available ({})", name, fmt::join(names, ", ")));
}

std::string dataset_name_help() {
  auto rows = serving_datasets();
  std::stable_partition(rows.begin(), rows.end(), [](const dataset_entry& e) { return e.detail.empty(); });
  std::vector<std::string> items;
  for (const auto& e : rows) {
    items.push_back(e.detail.empty() ? std::string(e.name) : fmt::format("{} ({})", e.name, e.detail));
  }
  if (items.size() > 1) items.back() = "or " + items.back();
  return fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace ironbench::serve
