// How a sweep walks its loads: every point of the concurrency x rate grid (an axis of rising
// load ending where it saturates), or a search for the highest load meeting the SLOs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "serve/chat/chat_template.hpp"
#include "serve/point/serve_point.hpp"
#include "serve/sweep/serve_sweep.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace ironbench::serve {

/// The sweep's fixed state: settings, the tokenizer and what each point's dataset needs, and
/// the outcome it fills.
struct sweep_run {
  const sweep_settings& s;
  const std::atomic<bool>* cancel;
  const sweep_callbacks& callbacks;
  load_settings load;
  std::unique_ptr<bpe_tokenizer> tokenizer;
  std::int64_t vocab = 0;
  std::shared_ptr<const chat::chat_template> chat_template;  ///< chat prompts counted through it (or none)
  bool single_point = false;
  sweep_outcome out;
  std::uint64_t prompt_sets = 0;  ///< sets of requests drawn so far (each point's seed: point_seed)

  /// The seed of the next set of requests: --seed for the first, then point_seed's (--seed
  /// again for every set with --reuse-prompts or --check-outputs, which compares the same prompts).
  std::uint64_t next_seed();

  /// One point at `concurrency` x `rate` of `requests` requests (0: --num-prompts, or
  /// --num-prompts-per-concurrency x concurrency); true when it was interrupted.
  bool measure(double concurrency, double rate, std::int64_t requests = 0);
  /// A point's requests: `count` of them after --num-warmups more, from the dataset (seeded by
  /// load.seed), counted, each with its prompt identity where one is needed (--save-detailed,
  /// --check-outputs).
  std::vector<prepared_request> prepare(std::int64_t count);
};

/// Every concurrency x rate (concurrencies outer), stopping an axis of rising load at its
/// first saturated point (unless settings.stop_at_saturation is false).
void run_grid(sweep_run& run);

/// --search: probes loads for the highest one meeting the objectives; every probe a point,
/// and a serve_slo_limit case with the answer (rank 0).
void run_search(sweep_run& run);

}  // namespace ironbench::serve
