#include "serve/workload/dataset_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "serve/workload/client_memory.hpp"

namespace ironbench::serve {
namespace {

std::vector<prepared_request> random_rows(const dataset_inputs& in) {
  auto dataset = in.options.random;
  dataset.vocab_size = in.vocab_size;
  return make_random_requests(dataset, in.body, in.count, in.seed, in.stop);
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
  return make_prefix_repetition_requests(dataset, in.body, in.count, in.seed, in.stop);
}

std::vector<prepared_request> conversation_rows(const dataset_inputs& in) {
  const auto& settings = in.options.conversation;
  return conversation_requests(make_synthetic_conversations(settings, in.count, in.seed), in.body, settings.think_s);
}

// A length drawn from [len x (1 - ratio), len x (1 + ratio)] at its longest.
std::uint64_t longest_draw(std::int64_t length, double ratio) {
  const double longest = std::ceil(static_cast<double>(std::max<std::int64_t>(0, length)) * (1 + std::max(0.0, ratio)));
  return longest >= 1.8e19 ? core::uncountable_bytes : static_cast<std::uint64_t>(longest);
}

std::uint64_t non_negative_count(std::int64_t n) { return static_cast<std::uint64_t>(std::max<std::int64_t>(0, n)); }

// A trace's lengths are numbers in its file: a line of input_length 10^12 costs nothing to read
// and terabytes to build, so the first `count` entries are sized before they are built.
dataset_footprint trace_entries_footprint(const std::vector<trace_entry>& trace, std::size_t count) {
  dataset_footprint f;
  for (std::size_t i = 0; i < std::min(count, trace.size()); ++i) {
    const auto& e = trace[i];
    const auto prompt = e.prompt ? std::uint64_t{0} : non_negative_count(e.input_len);  // a text is sent as it is
    f.prompt_tokens = core::bytes_plus(f.prompt_tokens, prompt);
    f.longest_prompt_tokens = std::max(f.longest_prompt_tokens, prompt);
    f.output_tokens = core::bytes_plus(f.output_tokens, non_negative_count(e.output_len));
  }
  return f;
}

std::vector<prepared_request> trace_rows(const dataset_inputs& in) {
  auto options = in.options.trace;
  options.vocab_size = in.vocab_size;
  const auto trace = read_trace(in.path, in.count);  // the requests to build, not the whole trace
  check_footprint_memory(trace_entries_footprint(trace, in.count), "trace", std::min(in.count, trace.size()), false,
                         host_available_memory());
  return make_trace_requests(trace, options, in.body, in.count);
}

dataset_footprint random_footprint(const dataset_options& o, std::uint64_t count) {
  using core::bytes_plus;
  using core::bytes_times;
  const auto& d = o.random;
  const auto longest = bytes_plus(non_negative_count(d.prefix_len), longest_draw(d.input_len, d.range_ratio));
  return {bytes_times(count, longest), longest, bytes_times(count, longest_draw(d.output_len, d.range_ratio))};
}

dataset_footprint prefix_repetition_footprint(const dataset_options& o, std::uint64_t count) {
  using core::bytes_plus;
  using core::bytes_times;
  const auto& d = o.prefix_repetition;
  const auto longest = bytes_plus(non_negative_count(d.prefix_len), non_negative_count(d.suffix_len));
  const auto prefixes = bytes_times(non_negative_count(d.num_prefixes), non_negative_count(d.prefix_len));
  return {bytes_plus(bytes_times(count, longest), prefixes), longest,
          bytes_times(count, non_negative_count(d.output_len))};
}

// Every turn is prepared with the turns before it, and sent with their answers too.
dataset_footprint conversation_footprint(const dataset_options& o, std::uint64_t count) {
  using core::bytes_plus;
  using core::bytes_times;
  const auto& c = o.conversation;
  const auto turns = non_negative_count(c.turns);
  const auto per_turn = bytes_plus(non_negative_count(c.user_len), non_negative_count(c.output_len));
  const auto longest = bytes_times(turns, per_turn);
  const auto histories = bytes_times(bytes_times(turns, turns + 1) / 2, per_turn);  // turn k carries k turns
  return {bytes_times(count, histories), longest,
          bytes_times(bytes_times(count, turns), non_negative_count(c.output_len))};
}

}  // namespace

const std::vector<dataset_entry>& serving_datasets() {
  static const std::vector<dataset_entry> table = {
      {"random", "", false, random_rows, random_footprint},
      {"sharegpt", "", true, sharegpt_rows, nullptr},
      {"custom", "JSONL of {\"prompt\": ...}", true, custom_rows, nullptr},
      {"prefix_repetition", "", false, prefix_repetition_rows, prefix_repetition_footprint},
      {"conversation", "", false, conversation_rows, conversation_footprint},
      {"trace", "JSONL replayed at its times: Mooncake's or {\"time_s\", \"input_len\", \"output_len\"}", true,
       trace_rows, nullptr},
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
