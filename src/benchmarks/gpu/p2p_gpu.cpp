// p2p: bandwidth from one GPU to another (write) and both ways at once (bidir), by copy
// engines or by a copy kernel over peer access; one case per ordered pair gives the matrix.
#include <fmt/format.h>

#include <memory>

#include "benchmarks/case_costs.hpp"
#include "benchmarks/copy.hpp"
#include "benchmarks/copy_axes.hpp"
#include "benchmarks/gpu/copy_kernels.hpp"
#include "benchmarks/gpu/copy_support.hpp"
#include "core/checked_bytes.hpp"
#include "device/gpu/gpu_memory.hpp"
#include "device/gpu/gpu_stream.hpp"

namespace ironbench::benchmarks {
namespace {

using core::case_state;
using core::device_info;

constexpr std::uint32_t local_salt = 3;
constexpr std::uint32_t peer_salt = 4;

int index_of(const std::string& id) { return std::stoi(id.substr(id.find(':') + 1)); }

void enable_peer_access(int from, int to) {
  device::use_gpu(from);
  const auto status = cudaDeviceEnablePeerAccess(to, 0);
  if (status == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();
    return;
  }
  IRONBENCH_GPU_CHECK(status);
}

// The buffers and stream of one side of a pair.
struct side {
  int index;
  device::device_buffer<std::uint8_t> source;
  device::device_buffer<std::uint8_t> destination;
  std::unique_ptr<device::gpu_stream> stream;

  side(int gpu, std::size_t bytes, std::uint32_t salt) : index(gpu) {
    device::use_gpu(gpu);
    source = device::device_buffer<std::uint8_t>(bytes);
    destination = device::device_buffer<std::uint8_t>(bytes);
    stream = std::make_unique<device::gpu_stream>();
    gpu_fill_pattern(source.data(), bytes, salt, stream->get());
    IRONBENCH_GPU_CHECK(cudaMemsetAsync(destination.data(), 0, bytes, stream->get()));
    stream->synchronize();
  }
};

class gpu_p2p_benchmark final : public core::benchmark {
 public:
  std::string name() const override { return "p2p"; }
  std::string summary() const override { return "GPU peer-to-peer copies"; }
  std::string unsupported_reason(const device_info& device) const override { return p2p_unsupported(device); }
  std::vector<core::axis> axes(const device_info& device) const override { return p2p_axes(device); }
  void check_params(const core::parameter_set& params, const device_info& device) const override {
    check_copy_params(params, device);
  }
  std::uint64_t memory_required(const core::parameter_set& params, const device_info&) const override {
    return core::bytes_times(2, static_cast<std::uint64_t>(params.integer("size")));
  }
  bool in_first_look(const core::parameter_set& params, const device_info&) const override {
    return p2p_in_first_look(params);
  }
  std::string first_look_summary(const device_info&) const override { return p2p_first_look_summary(); }
  core::case_cost cost(const core::parameter_set& params, const device_info& device) const override {
    return p2p_cost(params, device);
  }
  core::case_footprint footprint(const core::parameter_set& params, const device_info&) const override {
    return p2p_footprint(params);
  }

  void run(case_state& state) const override {
    const auto& params = state.params();
    const auto& device = state.device();
    if (auto reason = p2p_case_unsupported(params, device); !reason.empty()) state.skip(reason);
    const auto& engine = params.string("engine");
    const bool both_ways = params.string("direction") == "bidir";
    const auto bytes = static_cast<std::size_t>(params.integer("size"));
    const int peer_index = index_of(params.string("peer"));
    const unsigned blocks = copy_kernel_blocks(device.properties.value("multiprocessors", 1));
    // Peer access wherever the pair has it, for copy engines too: without it their copies are
    // staged through host memory. Enabled once, it stays, so the case order does not matter.
    int forward = 0, backward = 0;
    IRONBENCH_GPU_CHECK(cudaDeviceCanAccessPeer(&forward, device.index, peer_index));
    IRONBENCH_GPU_CHECK(cudaDeviceCanAccessPeer(&backward, peer_index, device.index));
    if (engine == "sm" && both_ways && backward == 0) {
      state.skip(fmt::format("{} has no peer access back to {}: its copy kernel cannot reach it", params.string("peer"),
                             device.id));
    }
    if (forward != 0) enable_peer_access(device.index, peer_index);
    if (both_ways && backward != 0) enable_peer_access(peer_index, device.index);
    const bool direct = forward != 0 && (!both_ways || backward != 0);
    state.note("peer_access", direct ? "enabled" : "none: the copies are staged through host memory");
    side local(device.index, bytes, local_salt);
    side peer(peer_index, bytes, peer_salt);

    // Each side's kernel or copy runs on its own GPU's stream and writes into the other GPU.
    const auto enqueue = [&] {
      device::use_gpu(local.index);
      enqueue_copy(engine, peer.destination.data(), local.source.data(), bytes, blocks, local.stream->get());
      if (both_ways) {
        device::use_gpu(peer.index);
        enqueue_copy(engine, local.destination.data(), peer.source.data(), bytes, blocks, peer.stream->get());
      }
    };
    state.add_bytes_written(static_cast<double>(both_ways ? 2 : 1) * static_cast<double>(bytes));
    state.note("engine", engine == "sm" ? "copy kernel writing into the peer's memory" : "copy engines");
    state.note("timing", "host clock around the copies and a synchronize of both GPUs");
    state.measure_host([&] {
      enqueue();
      local.stream->synchronize();
      peer.stream->synchronize();
    });

    device::use_gpu(peer.index);
    auto wrong = device_check_pattern(peer.destination.data(), bytes, local_salt);
    if (wrong.empty() && both_ways) {
      device::use_gpu(local.index);
      wrong = device_check_pattern(local.destination.data(), bytes, peer_salt);
    }
    device::use_gpu(device.index);
    state.note("verification", "every byte of every destination");
    state.require(wrong.empty(), "wrong copy: " + wrong);
  }
};

}  // namespace

std::unique_ptr<core::benchmark> make_gpu_p2p() { return std::make_unique<gpu_p2p_benchmark>(); }

}  // namespace ironbench::benchmarks
