// Whether a sweep's requests fit in this host's memory, checked before anything is built or
// sent: `--random-input-len 200000000` must be refused with the estimate, not grow the client
// to 16 GB and end in the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "serve/sweep/serve_sweep.hpp"
#include "serve/workload/dataset_table.hpp"

namespace ironbench::serve {

/// What the client needs for the largest point of `settings`, roughly and on the high side:
/// each prompt token as JSON text twice (the prepared body and its copy in flight), the longest
/// prompt's build (token ids as a JSON array), and per output token the gaps kept for ITL (more
/// with --save-detailed). 0 for the file datasets. Saturates instead of overflowing.
[[nodiscard]] std::uint64_t estimated_client_bytes(const sweep_settings& settings);

/// The bytes the requests of `footprint` need, as estimated_client_bytes counts them.
[[nodiscard]] std::uint64_t footprint_bytes(const dataset_footprint& footprint, bool save_detailed);

/// Memory this process may still take, and what says so: MemAvailable, or the cgroup's memory
/// limit where that is lower. Empty when neither can be read.
struct available_memory {
  std::optional<std::uint64_t> bytes;
  std::string source;  ///< "MemAvailable", "the cgroup memory limit"
};

/// This host's, read from /proc/meminfo and the process's cgroup.
[[nodiscard]] available_memory host_available_memory();

/// usage_error when footprint_bytes(footprint) exceeds `available`, naming the dataset, the
/// estimate and the memory; nothing when the memory is unknown. Also for the file datasets
/// (a trace's lengths are numbers in the file, not text), once their file is read.
void check_footprint_memory(const dataset_footprint& footprint, std::string_view dataset, std::uint64_t requests,
                            bool save_detailed, const available_memory& available);

/// usage_error when estimated_client_bytes(settings) exceeds `available`: "the requests need
/// about 3.0 TiB of memory (an estimate: 1000 prompts of up to 200000000 tokens, ...), but
/// MemAvailable is 5.1 GiB". Nothing when the memory is unknown.
void check_client_memory(const sweep_settings& settings, const available_memory& available);

}  // namespace ironbench::serve
