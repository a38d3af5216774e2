#include "serve/workload/client_memory.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "platform/cgroup.hpp"
#include "platform/os_info.hpp"

namespace ironbench::serve {
namespace {

// Bytes per prompt token held for the whole point: a token id is at most 7 characters of JSON
// ("151935,"), a one-token word 5; the prepared body and the copy a request in flight holds.
constexpr std::uint64_t held_bytes_per_prompt_token = 2 * 8;
// Building the longest prompt: its ids as a JSON array (16-byte values, the array's growth
// doubling that) and the text dumped from it.
constexpr std::uint64_t build_bytes_per_prompt_token = 48;
// Per output token: its gap in the request's record, in the pooled ITL list and a sorted copy
// for percentiles; --save-detailed writes them as JSON and keeps the text too.
constexpr std::uint64_t bytes_per_output_token = 24;
constexpr std::uint64_t detailed_bytes_per_output_token = 64;

// The most requests one point of the sweep builds (warm-ups included).
std::uint64_t largest_point_requests(const sweep_settings& s) {
  const auto per_concurrency = static_cast<std::uint64_t>(std::max<std::int64_t>(0, s.num_prompts_per_concurrency));
  std::uint64_t most = static_cast<std::uint64_t>(std::max<std::int64_t>(1, s.num_prompts));
  if (per_concurrency > 0) {
    double highest = 0;
    for (const double c : s.concurrencies) highest = std::max(highest, c);
    if (s.search && s.search->axis == search_axis::concurrency) highest = std::max(highest, s.search->max);
    if (highest > 0) most = core::bytes_times(per_concurrency, static_cast<std::uint64_t>(std::min(highest, 1e15)));
  }
  return core::bytes_plus(most, static_cast<std::uint64_t>(std::max(0, s.num_warmups)));
}

}  // namespace

std::uint64_t footprint_bytes(const dataset_footprint& f, bool save_detailed) {
  using core::bytes_plus;
  using core::bytes_times;
  const auto per_output = save_detailed ? detailed_bytes_per_output_token : bytes_per_output_token;
  return bytes_plus(bytes_plus(bytes_times(f.prompt_tokens, held_bytes_per_prompt_token),
                               bytes_times(f.longest_prompt_tokens, build_bytes_per_prompt_token)),
                    bytes_times(f.output_tokens, per_output));
}

std::uint64_t estimated_client_bytes(const sweep_settings& s) {
  const auto& dataset = dataset_named(s.dataset_name);
  if (dataset.footprint == nullptr) return 0;
  return footprint_bytes(dataset.footprint(s.datasets, largest_point_requests(s)), s.save.save_detailed);
}

available_memory host_available_memory() {
  const platform::sysfs_reader root;
  available_memory out;
  if (const auto memory = platform::detect_memory(root); memory.available_bytes) {
    out.bytes = memory.available_bytes;
    out.source = "MemAvailable";
  }
  const auto cgroup = platform::detect_cgroup(root);
  if (cgroup.memory_limit_bytes && *cgroup.memory_limit_bytes < platform::cgroup_v1_unlimited_threshold &&
      (!out.bytes || *cgroup.memory_limit_bytes < *out.bytes)) {
    out.bytes = cgroup.memory_limit_bytes;
    out.source = "the cgroup memory limit";
  }
  return out;
}

void check_footprint_memory(const dataset_footprint& f, std::string_view dataset, std::uint64_t requests,
                            bool save_detailed, const available_memory& available) {
  const auto needed = footprint_bytes(f, save_detailed);
  if (!available.bytes || needed <= *available.bytes) return;
  const auto amount = needed == core::uncountable_bytes ? std::string("more bytes than 64 bits can count")
                                                        : "about " + format_bytes(static_cast<double>(needed));
  throw usage_error(fmt::format(
      "the {} dataset's requests need {} of memory (an estimate: {} requests, prompts of up to {} tokens, {} output "
      "tokens at most), but {} is {}: ask for fewer or shorter prompts or outputs",
      dataset, amount, requests, f.longest_prompt_tokens, f.output_tokens, available.source,
      format_bytes(static_cast<double>(*available.bytes))));
}

void check_client_memory(const sweep_settings& s, const available_memory& available) {
  const auto& dataset = dataset_named(s.dataset_name);
  if (dataset.footprint == nullptr) return;
  const auto requests = largest_point_requests(s);
  check_footprint_memory(dataset.footprint(s.datasets, requests), s.dataset_name, requests, s.save.save_detailed,
                         available);
}

}  // namespace ironbench::serve
