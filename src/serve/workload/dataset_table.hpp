// The serving datasets of `ironbench serve`, one table: each row names a dataset, says what
// --dataset-name's help shows for it, whether it reads --dataset-path and how it builds the
// requests. The CLI's choices, help text and dispatch come from this table; a new dataset is
// one file with its builder and one row here.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "serve/client/load_generator.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"
#include "serve/workload/conversation_dataset.hpp"
#include "serve/workload/datasets.hpp"
#include "serve/workload/trace_dataset.hpp"

namespace ironbench::serve {

/// Every dataset's own settings (the --random-*, --prefix-repetition-*, --custom-output-len
/// and --sharegpt-output-len flags); a builder reads its own.
struct dataset_options {
  random_dataset random;                        ///< vocab_size is replaced by dataset_inputs::vocab_size
  prefix_repetition_dataset prefix_repetition;  ///< likewise
  std::int64_t custom_output_len = 256;
  std::int64_t sharegpt_output_len = 0;  ///< 0: the reference reply's length
  trace_options trace;                   ///< vocab_size is replaced by dataset_inputs::vocab_size
  synthetic_conversations conversation;  ///< the conversation dataset; its think time applies to --multi-turn too
  bool multi_turn = false;               ///< sharegpt: whole conversations instead of first turns
};

/// What every builder is given for one sweep point.
struct dataset_inputs {
  const dataset_options& options;
  const body_settings& body;
  const std::string& path;  ///< --dataset-path (empty unless the dataset needs one)
  std::size_t count = 0;    ///< requests to build (warm-ups included)
  std::uint64_t seed = 0;
  const bpe_tokenizer* tokenizer = nullptr;  ///< null without --tokenizer
  std::int64_t vocab_size = 32000;           ///< random token ids are drawn from [100, vocab_size)
  /// Set: the synthetic datasets (random, prefix-repetition) stop building and return the
  /// requests built so far (at least 64, or all); null: every request is built.
  const std::atomic<bool>* stop = nullptr;
};

/// Builds the requests of one sweep point.
using dataset_builder = std::vector<prepared_request> (*)(const dataset_inputs& inputs);

/// The tokens `count` requests of a dataset hold at most, from its settings alone: what the
/// memory they need is estimated from before anything is built (serve/workload/client_memory.hpp).
/// Sums saturate at the largest 64-bit value instead of wrapping.
struct dataset_footprint {
  std::uint64_t prompt_tokens = 0;          ///< every prompt together (each at its longest draw)
  std::uint64_t longest_prompt_tokens = 0;  ///< the longest one
  std::uint64_t output_tokens = 0;          ///< every request's max_tokens together
};

/// The footprint of `count` requests (warm-ups included) with `options`.
using dataset_sizer = dataset_footprint (*)(const dataset_options& options, std::uint64_t count);

/// One row of the table.
struct dataset_entry {
  std::string_view name;    ///< the --dataset-name value
  std::string_view detail;  ///< shown after the name in --dataset-name's help (empty: the name alone)
  bool needs_path = false;  ///< reads --dataset-path
  dataset_builder build = nullptr;
  /// Its footprint from the flags; null for the file datasets (the file's own size bounds them).
  dataset_sizer footprint = nullptr;
};

/// The table, in the order the "not available" error lists them.
[[nodiscard]] const std::vector<dataset_entry>& serving_datasets();

/// The row named `name`; throws usage_error "--dataset-name 'NAME' is not available (random,
/// sharegpt, ...)" listing every row when there is none.
[[nodiscard]] const dataset_entry& dataset_named(const std::string& name);

/// --dataset-name's help: the names of the rows, rows with a detail last ("random, sharegpt,
/// prefix_repetition, or custom (JSONL of {"prompt": ...})").
[[nodiscard]] std::string dataset_name_help();

}  // namespace ironbench::serve
