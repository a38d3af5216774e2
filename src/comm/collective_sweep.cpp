#include "comm/collective_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "comm/collective_data.hpp"

namespace ironbench::comm {
namespace {

using clock_type = std::chrono::steady_clock;

// Host bytes of rank `rank`'s input for `count` elements.
std::vector<unsigned char> input_bytes(collective c, reduce_op op, element_type type, int rank, std::size_t count) {
  std::vector<unsigned char> bytes(count * element_size(type));
  fill_input(c, op, type, rank, bytes.data(), count);
  return bytes;
}

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
  std::unique_ptr<comm_buffer> send;
  std::unique_ptr<comm_buffer> recv;
  std::size_t input_offset = 0;
  if (in_place) {
    recv = backend.allocate(std::max(shape.send_count, shape.recv_count) * element);
    if (c == collective::all_gather) input_offset = static_cast<std::size_t>(rank) * shape.send_count * element;
  } else {
    send = backend.allocate(shape.send_count * element);
    recv = backend.allocate(shape.recv_count * element);
  }
  auto& input_buffer = in_place ? *recv : *send;
  input_buffer.write(input_offset, input.data(), input.size());

  result.wrong = -1;
  std::size_t output_offset = 0;
  if (s.check) {
    output_offset = backend.run(c, send.get(), *recv, shape, s.type, s.op, s.root);
    backend.synchronize();
    std::vector<unsigned char> output(shape.recv_count * element);
    recv->read(output_offset, output.data(), output.size());
    result.wrong = world.sum(static_cast<double>(
        count_wrong(c, s.op, s.type, shape, rank, ranks, s.root, output.data())));
  }
  for (int i = 0; i < s.warmup_iterations; ++i) (void)backend.run(c, send.get(), *recv, shape, s.type, s.op, s.root);
  backend.synchronize();
  world.barrier();
  const auto start = clock_type::now();
  for (int i = 0; i < s.iterations; ++i) (void)backend.run(c, send.get(), *recv, shape, s.type, s.op, s.root);
  backend.synchronize();
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count() / s.iterations;
  const double average = world.sum(seconds) / ranks;
  result.ran = true;
  result.time_us = average * 1e6;
  result.algbw_gbs = shape.algorithm_bytes / average / 1e9;
  result.busbw_gbs = result.algbw_gbs * shape.bus_factor;
  return result;
}

}  // namespace

std::vector<std::size_t> sweep_sizes(std::size_t min_bytes, std::size_t max_bytes, double factor,
                                     std::size_t increment) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = min_bytes; size <= max_bytes && sizes.size() < 100000;) {
    sizes.push_back(size);
    const std::size_t next = increment > 0 ? size + increment : static_cast<std::size_t>(static_cast<double>(size) * factor);
    if (next <= size) break;
    size = next;
  }
  return sizes;
}

std::vector<sweep_row> run_sweep(bootstrap& world, collective_backend& backend, const sweep_settings& settings,
                                 const sweep_progress& progress) {
  std::vector<sweep_row> rows;
  const auto sizes = sweep_sizes(settings.min_bytes, settings.max_bytes, settings.factor, settings.increment);
  for (const auto c : settings.collectives) {
    for (const auto bytes : sizes) {
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
    }
  }
  return rows;
}

bandwidth_summary summarize(const std::vector<sweep_row>& rows) {
  bandwidth_summary s;
  double sum = 0, sum_large = 0;
  std::size_t count = 0, count_large = 0;
  for (const auto& row : rows) {
    for (const auto* p : {&row.out_of_place, &row.in_place}) {
      if (!p->ran) continue;
      sum += p->busbw_gbs;
      ++count;
      if (row.bytes >= (std::size_t{1} << 20)) {
        sum_large += p->busbw_gbs;
        ++count_large;
      }
      if (p->busbw_gbs > s.peak_gbs) {
        s.peak_gbs = p->busbw_gbs;
        s.peak_bytes = row.bytes;
      }
      if (p->wrong > 0) s.wrong += p->wrong;
    }
  }
  s.average_gbs = count > 0 ? sum / static_cast<double>(count) : 0;
  s.average_from_1mib_gbs = count_large > 0 ? sum_large / static_cast<double>(count_large) : 0;
  return s;
}

}  // namespace ironbench::comm
