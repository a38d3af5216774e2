#include "comm/collective_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "comm/collective_data.hpp"
#include "schema/collective_kinds.hpp"

namespace ironbench::comm {
namespace {

using clock_type = std::chrono::steady_clock;

// Host bytes of rank `rank`'s input for `count` elements.
std::vector<unsigned char> input_bytes(collective c, reduce_op op, element_type type, int rank, std::size_t count) {
  std::vector<unsigned char> bytes(count * element_size(type));
  fill_input(c, op, type, rank, bytes.data(), count);
  return bytes;
}

// A window of `bytes` bytes at `offset` into a larger buffer.
class buffer_slice final : public comm_buffer {
 public:
  buffer_slice(comm_buffer& whole, std::size_t offset, std::size_t bytes)
      : whole_(whole), offset_(offset), bytes_(bytes) {}
  void* data() override { return static_cast<std::byte*>(whole_.data()) + offset_; }
  std::size_t bytes() const override { return bytes_; }
  void write(std::size_t offset, const void* host, std::size_t bytes) override {
    whole_.write(offset_ + offset, host, bytes);
  }
  void read(std::size_t offset, void* host, std::size_t bytes) const override {
    whole_.read(offset_ + offset, host, bytes);
  }

 private:
  comm_buffer& whole_;
  std::size_t offset_;
  std::size_t bytes_;
};

placement_result measure(bootstrap& world, collective_backend& backend, const sweep_settings& s, collective c,
                         const call_shape& shape, bool in_place) {
  placement_result result;
  if (auto why = backend.unsupported(c, s.type, s.op, in_place); !why.empty()) {
    result.skipped = why;
    return result;
  }
  const int rank = world.rank();
  const int ranks = world.size();
  const std::size_t element = element_size(s.type);
  const auto input = input_bytes(c, s.op, s.type, rank, shape.send_count);
  const std::size_t send_bytes = shape.send_count * element;
  const std::size_t recv_bytes =
      in_place ? std::max(shape.send_count, shape.recv_count) * element : shape.recv_count * element;
  const auto layout = rotation_of(shape, element, s.max_bytes, backend.rotates_buffers());
  // The slices the iterations reach (one, unless the backend rotates; never more than there
  // are iterations), made before the clock starts. The input and the check use slice 0.
  // Only those are allocated: small sizes need a few KiB, not -e bytes each.
  const std::size_t reached =
      std::min(layout.slices, static_cast<std::size_t>(std::max({s.warmup_iterations, s.iterations, 1})));
  const std::size_t span = (reached - 1) * layout.stride_bytes;
  std::unique_ptr<comm_buffer> send_whole;
  std::unique_ptr<comm_buffer> recv_whole = backend.allocate(span + recv_bytes);
  if (!in_place) send_whole = backend.allocate(span + send_bytes);
  const auto send_at = [&](std::size_t slice) -> std::unique_ptr<comm_buffer> {
    if (in_place) return nullptr;
    return std::make_unique<buffer_slice>(*send_whole, slice * layout.stride_bytes, send_bytes);
  };
  const auto recv_at = [&](std::size_t slice) {
    return std::make_unique<buffer_slice>(*recv_whole, slice * layout.stride_bytes, recv_bytes);
  };
  std::vector<std::unique_ptr<comm_buffer>> sends, recvs;
  for (std::size_t slice = 0; slice < reached; ++slice) {
    sends.push_back(send_at(slice));
    recvs.push_back(recv_at(slice));
  }
  comm_buffer* send = sends.front().get();
  comm_buffer* recv = recvs.front().get();
  std::size_t input_offset = 0;
  if (const auto at = schema::kind_of(c).in_place_input; in_place && at != nullptr)
    input_offset = at(shape, rank) * element;
  auto& input_buffer = in_place ? *recv : *send;
  input_buffer.write(input_offset, input.data(), input.size());

  result.wrong = -1;
  std::size_t output_offset = 0;
  if (s.check) {
    output_offset = backend.run(c, send, *recv, shape, s.type, s.op, s.root);
    backend.synchronize();
    std::vector<unsigned char> output(shape.recv_count * element);
    recv->read(output_offset, output.data(), output.size());
    result.wrong =
        world.sum(static_cast<double>(count_wrong(c, s.op, s.type, shape, rank, ranks, s.root, output.data())));
  }
  const auto iteration = [&](int i) {
    const auto slice = static_cast<std::size_t>(i) % layout.slices;  // < reached, as i < max(-w, -n)
    (void)backend.run(c, sends[slice].get(), *recvs[slice], shape, s.type, s.op, s.root);
  };
  for (int i = 0; i < s.warmup_iterations; ++i) iteration(i);
  backend.synchronize();
  double timed_iterations = s.iterations;
  if (s.graph_launches > 0) {
    // As nccl-tests -G: the -n iterations recorded once, the recording replayed -G times.
    backend.begin_graph();
    for (int i = 0; i < s.iterations; ++i) iteration(i);
    backend.end_graph();
    timed_iterations = static_cast<double>(s.iterations) * s.graph_launches;
  }
  world.barrier();
  const auto start = clock_type::now();
  if (s.slow_rank == rank && s.slow_ms > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(s.slow_ms));
  }
  const auto arrived = clock_type::now();
  if (s.graph_launches > 0) {
    for (int launch = 0; launch < s.graph_launches; ++launch) backend.replay_graph();
  } else {
    for (int i = 0; i < s.iterations; ++i) iteration(i);
  }
  backend.synchronize();
  const auto end = clock_type::now();
  const double seconds = std::chrono::duration<double>(end - start).count() / timed_iterations;
  const double inside = std::chrono::duration<double>(end - arrived).count();
  result.rank_seconds.assign(static_cast<std::size_t>(ranks), 0.0);
  world.all_gather_bytes(&inside, result.rank_seconds.data(), sizeof inside);
  if (s.graph_launches > 0) backend.discard_graph();  // before the buffers it refers to are freed
  const double average = world.sum(seconds) / ranks;
  result.ran = true;
  result.time_us = average * 1e6;
  result.algbw_gbs = shape.algorithm_bytes / average / 1e9;
  result.busbw_gbs = result.algbw_gbs * shape.bus_factor;
  return result;
}

}  // namespace

buffer_rotation rotation_of(const call_shape& shape, std::size_t element_bytes, std::size_t max_bytes, bool rotates) {
  buffer_rotation r;
  r.stride_bytes = std::max(shape.send_count, shape.recv_count) * element_bytes;
  if (rotates && r.stride_bytes > 0) r.slices = std::max<std::size_t>(1, max_bytes / r.stride_bytes);
  return r;
}

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                     std::size_t increment) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = min_bytes; size <= max_bytes && sizes.size() < 100000;) {
    sizes.push_back(size);
    const std::size_t next =
        increment > 0 ? size + increment : static_cast<std::size_t>(static_cast<double>(size) * factor);
    if (next <= size) break;
    size = next;
  }
  return sizes;
}

std::vector<sweep_row> run_sweep(bootstrap& world, collective_backend& backend, const sweep_settings& settings,
                                 const sweep_progress& progress, const sweep_stop& stop,
                                 const sweep_row_done& row_done) {
  std::vector<sweep_row> rows;
  const auto sizes = sweep_sizes(settings.min_bytes, settings.max_bytes, settings.factor, settings.increment);
  for (const auto c : settings.collectives) {
    for (const auto bytes : sizes) {
      if (stop && stop()) return rows;
      const auto shape = shape_of(c, bytes, settings.type, world.size());
      if (shape.send_count == 0 || shape.recv_count == 0) continue;  // smaller than one element per rank
      sweep_row row{c, settings.type, settings.op, has_root(c) ? settings.root : -1, bytes, shape, {}, {}};
      const auto step = [&](const char* placement) {
        if (progress) progress(fmt::format("{} {} B {}", to_string(c), bytes, placement));
      };
      if (settings.out_of_place) {
        step("out of place");
        row.out_of_place = measure(world, backend, settings, c, shape, false);
      }
      if (settings.in_place) {
        step("in place");
        row.in_place = measure(world, backend, settings, c, shape, true);
      }
      rows.push_back(row);
      if (row_done) row_done(rows.back());
    }
  }
  return rows;
}

}  // namespace ironbench::comm
