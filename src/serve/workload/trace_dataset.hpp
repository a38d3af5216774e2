// Production traffic replayed: a JSONL trace of requests with their arrival times and
// lengths, sent at those times (scaled by --trace-speed). Two formats are read, line by line:
//   Mooncake's: {"timestamp": MS, "input_length": N, "output_length": N, "hash_ids": [..]}
//   plain:      {"time_s": S, "input_len": N | "prompt": "text", "output_len": N}
// A prompt is built block by block from its hash ids: each block of `block_size` tokens is
// drawn from a generator seeded by its hash id, so requests that shared a prefix in
// production share it here and a server's prefix cache sees the same reuse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "serve/client/load_generator.hpp"
#include "serve/workload/datasets.hpp"

namespace ironbench::serve {

struct trace_entry {
  double at_s = 0;  ///< arrival time as written (seconds)
  std::int64_t input_len = 0;
  std::int64_t output_len = 0;
  std::vector<std::int64_t> hash_ids;  ///< prefix blocks (Mooncake); empty: random tokens
  std::optional<std::string> prompt;   ///< the plain form's text, sent as it is
};

/// Reads the first `max_entries` requests of a trace (all by default) through
/// core::bounded_reader: a regular file of at most 1024 MiB, lines of at most 16 MiB
/// (core::file_kinds::dataset, core::max_line_bytes); usage_error naming the file and line of
/// anything malformed (not JSON, no time, a time going backwards, a length that is not a
/// positive whole number) or beyond a limit.
[[nodiscard]] std::vector<trace_entry> read_trace(const std::string& path,
                                                  std::size_t max_entries = static_cast<std::size_t>(-1));

struct trace_options {
  std::int64_t block_size = 512;  ///< tokens per hash id (Mooncake's)
  std::int64_t vocab_size = 32000;
};

/// The first `count` entries (or all, when fewer) as requests whose send_at_s is the entry's
/// time from the first entry's. Completions get token-id prompts; chat gets as many one-token
/// words, drawn the same way.
[[nodiscard]] std::vector<prepared_request> make_trace_requests(const std::vector<trace_entry>& trace,
                                                                const trace_options& options, const body_settings& body,
                                                                std::size_t count);

}  // namespace ironbench::serve
