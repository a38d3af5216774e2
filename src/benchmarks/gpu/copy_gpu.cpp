// copy: host<->device and device-local bandwidth with copy engines or a copy kernel, from
// pinned or pageable host memory; every destination byte checked afterwards.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/copy.hpp"
#include "benchmarks/copy_axes.hpp"
#include "benchmarks/gpu/copy_kernels.hpp"
#include "benchmarks/gpu/copy_support.hpp"
#include "benchmarks/gpu/gpu_timing.hpp"
#include "core/checked_bytes.hpp"
#include "core/error.hpp"
#include "core/side_thread.hpp"
#include "core/units.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"

namespace ironbench::benchmarks {
namespace {

using core::case_state;
using core::device_info;

constexpr std::uint32_t host_salt = 1;
constexpr std::uint32_t device_salt = 2;

// Pageable memory starts on a page, as the large tensors of frameworks do (PyTorch aligns its
// CPU allocations): a large malloc returns an address 16 bytes into its first page, so every
// chunk the driver stages would straddle cache lines. Touched (zeroed) before use.
constexpr std::size_t pageable_alignment = 4096;

struct free_deleter {
  void operator()(std::uint8_t* p) const { std::free(p); }
};

// Host memory of one side of a copy: pinned and mapped, or ordinary pageable memory.
class host_memory {
 public:
  host_memory(std::size_t bytes, bool pinned) {
    if (pinned) {
      pinned_ = std::make_unique<device::pinned_buffer<std::uint8_t>>(bytes);
    } else {
      const std::size_t rounded = (bytes + pageable_alignment - 1) / pageable_alignment * pageable_alignment;
      pageable_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(pageable_alignment, rounded)));
      if (!pageable_) throw error(fmt::format("cannot allocate {} of pageable host memory", format_bytes(rounded)));
      std::memset(pageable_.get(), 0, rounded);
    }
  }
  [[nodiscard]] std::uint8_t* host() { return pinned_ ? pinned_->data() : pageable_.get(); }
  /// Address for copies and kernels: the mapped address of pinned memory.
  [[nodiscard]] std::uint8_t* for_gpu() { return pinned_ ? pinned_->device_pointer() : pageable_.get(); }

 private:
  std::unique_ptr<device::pinned_buffer<std::uint8_t>> pinned_;
  std::unique_ptr<std::uint8_t, free_deleter> pageable_;
};

class gpu_copy_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "copy"; }
  std::string summary() const override { return "GPU copies"; }
  std::string unsupported_reason(const device_info& device) const override {
    if (core::is_gpu(device)) return {};
    return "copies to and from a GPU need a GPU";
  }
  std::vector<core::axis> axes(const device_info&) const override { return copy_axes(); }
  void check_params(const core::parameter_set& params, const device_info& device) const override {
    check_copy_params(params, device);
  }
  std::uint64_t memory_required(const core::parameter_set& params, const device_info&) const override {
    return core::bytes_times(2, static_cast<std::uint64_t>(params.integer("size")));
  }
  bool in_first_look(const core::parameter_set& params, const device_info&) const override {
    return copy_in_first_look(params);
  }
  std::string first_look_summary(const device_info&) const override { return copy_first_look_summary(); }
  core::case_cost cost(const core::parameter_set& params, const device_info& device) const override {
    return copy_cost(params, device);
  }
  core::case_footprint footprint(const core::parameter_set& params, const device_info&) const override {
    return copy_footprint(params);
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    if (auto reason = copy_case_unsupported(params); !reason.empty()) state.skip(reason);
    const auto& path = params.string("path");
    const auto& engine = params.string("engine");
    const auto bytes = static_cast<std::size_t>(params.integer("size"));
    const bool pinned = path.find("_pageable") == std::string::npos;
    const bool to_device = path.rfind("h2d", 0) == 0 || path.rfind("bidir", 0) == 0;
    const bool to_host = path.rfind("d2h", 0) == 0 || path.rfind("bidir", 0) == 0;
    const bool local = path == "d2d";
    const auto& device = state.device();
    device::use_gpu(device.index);
    // Both directions at once share the SMs: each copy kernel gets half, so that the two run
    // side by side rather than one after the other.
    const bool both_ways = to_device && to_host;
    const unsigned all_blocks = copy_kernel_blocks(device.properties.value("multiprocessors", 1));
    const unsigned blocks = both_ways ? std::max(1u, all_blocks / 2) : all_blocks;

    device::gpu_stream first, second;
    device::device_buffer<std::uint8_t> device_source(bytes), device_destination(bytes);
    gpu_fill_pattern(device_source.data(), bytes, device_salt, first.get());
    IRONBENCH_GPU_CHECK(cudaMemsetAsync(device_destination.data(), 0, bytes, first.get()));
    std::optional<host_memory> host_source, host_destination;
    if (to_device) {
      host_source.emplace(bytes, pinned);
      host_fill_pattern(host_source->host(), bytes, host_salt);
    }
    if (to_host) {
      host_destination.emplace(bytes, pinned);
      std::fill_n(host_destination->host(), bytes, std::uint8_t{0});
    }
    first.synchronize();

    // One repetition enqueues each direction's copy on its own stream.
    const auto enqueue_to_device = [&] {
      enqueue_copy(engine, device_destination.data(), host_source->for_gpu(), bytes, blocks, first.get());
    };
    const auto enqueue_to_host = [&] {
      enqueue_copy(engine, host_destination->for_gpu(), device_source.data(), bytes, blocks, second.get());
    };
    const auto enqueue = [&] {
      if (local) enqueue_copy(engine, device_destination.data(), device_source.data(), bytes, blocks, first.get());
      if (to_device) enqueue_to_device();
      if (to_host) enqueue_to_host();
    };
    const int directions = (to_device ? 1 : 0) + (to_host ? 1 : 0) + (local ? 1 : 0);
    state.add_bytes_written(static_cast<double>(directions) * static_cast<double>(bytes));
    state.note("engine", engine == "sm" ? fmt::format("copy kernel, {} blocks of 512 threads{}, 16-byte accesses",
                                                      blocks, both_ways ? " per direction" : "")
                                        : "copy engines (cudaMemcpyAsync)");
    state.note("host_memory", local ? "none" : (pinned ? "pinned, mapped" : "pageable, page-aligned, touched"));

    if (directions == 1 && pinned) {
      cudaStream_t stream = to_host ? second.get() : first.get();
      state.measure(gpu_event_timed(stream, {}, enqueue));
      state.note("timing", "device events");
    } else if (both_ways && !pinned) {
      // A copy from pageable memory returns once the host has staged it, one into pageable
      // memory once it is complete: from one thread the two directions would take turns. The
      // upload's thread is started once, outside the timed region.
      core::side_thread uploader([&] {
        device::use_gpu(device.index);
        enqueue_to_device();
        first.synchronize();
      });
      state.measure_host([&] {
        uploader.start();
        enqueue_to_host();
        second.synchronize();
        uploader.wait();
      });
      state.note("timing", "host clock around the copies, each direction issued by its own host thread");
    } else {
      // Several streams at once, or pageable memory staged by the host: the host clock sees it all.
      state.measure_host([&] {
        enqueue();
        first.synchronize();
        second.synchronize();
      });
      state.note("timing", "host clock around the copies and a synchronize");
    }
    first.synchronize();
    second.synchronize();

    std::string wrong;
    if (to_device || local) {
      wrong = device_check_pattern(device_destination.data(), bytes, to_device ? host_salt : device_salt);
      if (!wrong.empty()) wrong = "device destination: " + wrong;
    }
    if (wrong.empty() && to_host) {
      wrong = host_check_pattern(host_destination->host(), bytes, device_salt);
      if (!wrong.empty()) wrong = "host destination: " + wrong;
    }
    state.note("verification", fmt::format("every byte of {} destination(s)", directions));
    state.require(wrong.empty(), "wrong copy: " + wrong);
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_gpu_copy() { return std::make_unique<gpu_copy_benchmark>(); }

}  // namespace ironbench::benchmarks
