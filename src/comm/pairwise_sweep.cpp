#include "comm/pairwise_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <thread>
#include <tuple>

#include "comm/pairwise_data.hpp"
#include "comm/pairwise_schedule.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"

namespace ironbench::comm {
namespace {

using pair_clock = std::chrono::steady_clock;
constexpr std::size_t pair_name_bytes = 256;
constexpr double no_value = std::numeric_limits<double>::quiet_NaN();

double seconds_since(pair_clock::time_point start) {
  return std::chrono::duration<double>(pair_clock::now() - start).count();
}

// Every rank's node name, in rank order, on every rank.
std::vector<std::string> every_node_name(bootstrap& world, const std::string& host_name) {
  std::array<char, pair_name_bytes> mine{};
  std::memcpy(mine.data(), host_name.data(), std::min(host_name.size(), pair_name_bytes - 1));
  std::vector<char> all(pair_name_bytes * static_cast<std::size_t>(world.size()));
  world.all_gather_bytes(mine.data(), all.data(), pair_name_bytes);
  std::vector<std::string> hosts;
  for (int r = 0; r < world.size(); ++r) hosts.emplace_back(all.data() + static_cast<std::size_t>(r) * pair_name_bytes);
  return hosts;
}

std::string measuring_ranks(const std::vector<pair_participant>& participants) {
  std::string text;
  for (const auto& p : participants) text += (text.empty() ? "" : ", ") + std::to_string(p.rank);
  return text;
}

// One pair's exchanges at every size, from this rank's side; what it timed, as JSON records.
class pair_measurer {
 public:
  pair_measurer(peer_exchange& peers, const pairwise_settings& s, int me_rank, std::size_t largest)
      : peers_(peers), s_(s), me_(me_rank), send_(largest), receive_(largest) {}

  /// Measures with `peer` (whose participant index is `peer_index`); `lower` is whether this
  /// rank's participant index is the lower of the pair (it sends first).
  json measure(int peer, int peer_index, bool lower, int round) {
    json records = json::array();
    const double delay_ms = delays_exchange(s_.fault, me_, peer) ? s_.fault.delay_ms : 0;
    for (std::size_t k = 0; k < s_.sizes.size(); ++k) {
      const auto bytes = s_.sizes[k];
      const std::uint64_t seed = (static_cast<std::uint64_t>(round) << 32) | (k << 4);
      std::int64_t wrong = 0;
      // Warm-up: both ways at once, untimed.
      fill_pair_pattern(send_.data(), bytes, me_, peer, seed);
      for (int i = 0; i < s_.warmup_iterations; ++i) peers_.send_receive(peer, send_.data(), receive_.data(), bytes);
      // Both ways at once.
      fill_pair_pattern(send_.data(), bytes, me_, peer, seed + 1);
      std::memset(receive_.data(), 0, bytes);
      synchronize(peer);
      auto start = pair_clock::now();
      for (int i = 0; i < s_.iterations; ++i) {
        pause(delay_ms);
        peers_.send_receive(peer, send_.data(), receive_.data(), bytes);
      }
      const double both_s = seconds_since(start);
      wrong += count_pattern_mismatches(receive_.data(), bytes, peer, me_, seed + 1);
      // Each way alone: the lower participant sends first.
      double send_s = 0;
      for (const bool lower_sends : {true, false}) {
        const bool sending = lower_sends == lower;
        const std::uint64_t one_way = seed + (lower_sends ? 2 : 3);
        if (sending) {
          fill_pair_pattern(send_.data(), bytes, me_, peer, one_way);
        } else {
          std::memset(receive_.data(), 0, bytes);
        }
        synchronize(peer);
        start = pair_clock::now();
        unsigned char ack = 0;
        if (sending) {
          for (int i = 0; i < s_.iterations; ++i) {
            pause(delay_ms);
            peers_.send(peer, send_.data(), bytes);
          }
          peers_.receive(peer, &ack, 1);
          send_s = seconds_since(start);
        } else {
          for (int i = 0; i < s_.iterations; ++i) {
            pause(delay_ms);
            peers_.receive(peer, receive_.data(), bytes);
          }
          peers_.send(peer, &ack, 1);
          wrong += count_pattern_mismatches(receive_.data(), bytes, peer, me_, one_way);
        }
      }
      records.push_back({{"peer", peer_index}, {"size", k}, {"send_s", send_s}, {"both_s", both_s}, {"wrong", wrong}});
    }
    return records;
  }

 private:
  void synchronize(int peer) {
    unsigned char out = 1, in = 0;
    peers_.send_receive(peer, &out, &in, 1);
  }
  static void pause(double ms) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  }

  peer_exchange& peers_;
  const pairwise_settings& s_;
  int me_;
  std::vector<unsigned char> send_, receive_;
};

}  // namespace

pair_mode parse_pair_mode(const std::string& text) {
  if (text == "nodes") return pair_mode::nodes;
  if (text == "ranks") return pair_mode::ranks;
  throw usage_error(fmt::format("--pairs takes nodes or ranks, not '{}'", text));
}

const char* to_string(pair_mode mode) { return mode == pair_mode::nodes ? "nodes" : "ranks"; }

std::vector<std::size_t> default_pair_sizes() {
  return {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20};
}

std::vector<pair_participant> select_participants(pair_mode mode, const std::vector<std::string>& hosts) {
  std::map<std::string, int> ranks_on;
  for (const auto& h : hosts) ++ranks_on[h];
  std::vector<pair_participant> out;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const auto& host = hosts[r];
    const int rank = static_cast<int>(r);
    if (mode == pair_mode::ranks) {
      out.push_back({rank, host, fmt::format("rank {}", rank), ranks_on[host]});
      continue;
    }
    const bool first = std::none_of(out.begin(), out.end(), [&](const pair_participant& p) { return p.host == host; });
    if (first) out.push_back({rank, host, host, ranks_on[host]});
  }
  return out;
}

void check_fault_applies(const injected_fault& fault, const std::vector<pair_participant>& participants,
                         pair_mode mode) {
  if (fault.kind != fault_kind::slow && fault.kind != fault_kind::slow_link) return;
  const auto takes_part = [&](int rank) {
    return std::any_of(participants.begin(), participants.end(),
                       [&](const pair_participant& p) { return p.rank == rank; });
  };
  for (const int rank : {fault.rank, fault.peer}) {
    if (rank < 0 || takes_part(rank)) continue;
    throw usage_error(fmt::format("--inject-fault {}: rank {} takes no part in --pairs {} (the ranks that measure: {})",
                                  to_string(fault), rank, to_string(mode), measuring_ranks(participants)));
  }
}

std::vector<std::vector<double>> pair_matrix(const pairwise_result& r, std::size_t bytes, const std::string& kind) {
  const auto n = r.participants.size();
  std::vector<std::vector<double>> m(n, std::vector<double>(n, no_value));
  for (const auto& p : r.pairs) {
    if (p.bytes != bytes) continue;
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    if (kind == "both") {
      m[a][b] = m[b][a] = p.both_gbs;
    } else {
      m[a][b] = p.a_to_b_gbs;
      m[b][a] = p.b_to_a_gbs;
    }
  }
  return m;
}

std::vector<std::string> participant_labels(const pairwise_result& r) {
  std::vector<std::string> labels;
  for (const auto& p : r.participants) labels.push_back(p.label);
  return labels;
}

pairwise_result run_pairwise(bootstrap& world, peer_exchange& peers, const std::string& host_name,
                             const pairwise_settings& s, const std::atomic<bool>* cancel) {
  const auto start = pair_clock::now();
  pairwise_result result;
  result.mode = s.mode;
  result.ranks = world.size();
  result.sizes = s.sizes;
  result.iterations = s.iterations;
  result.warmup_iterations = s.warmup_iterations;
  result.fault = to_string(s.fault);
  if (s.sizes.empty() || s.iterations < 1 || s.warmup_iterations < 0) {
    throw usage_error("--pairs needs at least one size, --iters >= 1 and --warmup_iters >= 0");
  }
  const auto hosts = every_node_name(world, host_name);
  result.participants = select_participants(s.mode, hosts);
  const int n = static_cast<int>(result.participants.size());
  if (world.size() < 2) {
    throw usage_error("--pairs needs at least 2 ranks: run it under mpirun or srun (one rank per node, or more)");
  }
  if (n < 2) {
    throw usage_error(
        fmt::format("--pairs nodes: all {} ranks are on one node ({}); run ranks on several nodes, give each "
                    "its node's name in IRONBENCH_NODE_NAME, or use --pairs ranks",
                    world.size(), hosts.front()));
  }
  check_fault_applies(s.fault, result.participants, s.mode);
  const int rank = world.rank();
  enact_start_fault(s.fault, rank);
  int me = -1;
  for (int i = 0; i < n; ++i) {
    if (result.participants[static_cast<std::size_t>(i)].rank == rank) me = i;
  }
  const auto rounds = pairwise_rounds(n);
  result.rounds = static_cast<int>(rounds.size());
  pair_measurer measurer(peers, s, rank, me >= 0 ? *std::max_element(s.sizes.begin(), s.sizes.end()) : 0);
  json mine = json::array();
  std::int64_t wrong = 0;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    // Every rank enters each round (the watchdog's operations) before the vote on stopping.
    if (s.progress) s.progress(fmt::format("pairs round {}/{}", r + 1, rounds.size()));
    if (cancel != nullptr && world.max(cancel->load() ? 1.0 : 0.0) > 0) {
      result.interrupted = true;
      break;
    }
    const int partner = me >= 0 ? partner_in(rounds[r], me) : -1;
    if (partner >= 0) {
      const int peer = result.participants[static_cast<std::size_t>(partner)].rank;
      for (auto& record : measurer.measure(peer, partner, me < partner, static_cast<int>(r))) {
        wrong += record.at("wrong").get<std::int64_t>();
        mine.push_back(std::move(record));
      }
    }
    world.barrier();
  }
  result.wrong_bytes = static_cast<std::int64_t>(world.sum(static_cast<double>(wrong)));
  const auto texts = world.gather(core::json_text(json{{"participant", me}, {"records", mine}}));
  result.seconds = seconds_since(start);
  if (rank != 0) return result;

  // (participant, peer, size) -> record, from every rank's records.
  std::map<std::tuple<int, int, std::size_t>, json> records;
  for (const auto& text : texts) {
    const auto doc = json::parse(text);
    const int who = doc.at("participant").get<int>();
    for (const auto& rec : doc.at("records")) {
      records[{who, rec.at("peer").get<int>(), rec.at("size").get<std::size_t>()}] = rec;
    }
  }
  const auto iterations = static_cast<double>(s.iterations);
  for (const auto& round : rounds) {
    for (const auto& [a, b] : round) {
      for (std::size_t k = 0; k < s.sizes.size(); ++k) {
        const auto ab = records.find({a, b, k}), ba = records.find({b, a, k});
        if (ab == records.end() || ba == records.end()) continue;  // interrupted before this round
        pair_measurement m;
        m.a = a;
        m.b = b;
        m.bytes = s.sizes[k];
        const double bytes = static_cast<double>(m.bytes) * iterations;
        const auto rate = [](double moved, double seconds) { return seconds > 0 ? moved / seconds * 1e-9 : no_value; };
        m.a_to_b_gbs = rate(bytes, ab->second.at("send_s").get<double>());
        m.b_to_a_gbs = rate(bytes, ba->second.at("send_s").get<double>());
        m.both_gbs =
            rate(2 * bytes, std::max(ab->second.at("both_s").get<double>(), ba->second.at("both_s").get<double>()));
        m.wrong_bytes = ab->second.at("wrong").get<std::int64_t>() + ba->second.at("wrong").get<std::int64_t>();
        result.pairs.push_back(m);
      }
    }
  }
  const auto largest = *std::max_element(s.sizes.begin(), s.sizes.end());
  result.findings = analyse_pairs(pair_matrix(result, largest, "one_way"), s.outlier_factor);
  return result;
}

json to_json(const pairwise_result& r) {
  const auto matrix_json = [](const std::vector<std::vector<double>>& m) {
    json rows = json::array();
    for (const auto& row : m) {
      json cells = json::array();
      for (const double v : row) cells.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      rows.push_back(std::move(cells));
    }
    return rows;
  };
  json participants = json::array(), matrices = json::array();
  for (const auto& p : r.participants) {
    participants.push_back(
        {{"label", p.label}, {"rank", p.rank}, {"host", p.host}, {"ranks_on_node", p.ranks_on_node}});
  }
  for (const auto bytes : r.sizes) {
    matrices.push_back({{"bytes", bytes},
                        {"one_way_gbs", matrix_json(pair_matrix(r, bytes, "one_way"))},
                        {"both_gbs", matrix_json(pair_matrix(r, bytes, "both"))}});
  }
  const auto n = static_cast<int>(r.participants.size());
  return {{"mode", to_string(r.mode)},
          {"ranks", r.ranks},
          {"participants", participants},
          {"rounds", r.rounds},
          {"pairs", n * (n - 1) / 2},
          {"sizes", r.sizes},
          {"iterations", r.iterations},
          {"warmup_iterations", r.warmup_iterations},
          {"seconds", r.seconds},
          {"wrong_bytes", r.wrong_bytes},
          {"interrupted", r.interrupted},
          {"fault", r.fault},
          {"judged_at_bytes", r.sizes.empty() ? 0 : *std::max_element(r.sizes.begin(), r.sizes.end())},
          {"matrices", matrices},
          {"findings", to_json(r.findings, participant_labels(r))}};
}

std::vector<core::case_result> pairwise_cases(const pairwise_result& r) {
  std::vector<core::case_result> cases;
  const auto labels = participant_labels(r);
  for (const auto& p : r.pairs) {
    core::case_result c;
    c.benchmark = "pairwise";
    c.device = fmt::format("{} {}", r.participants.size(), to_string(r.mode));
    c.params.set(
        "link", fmt::format("{} <-> {}", labels[static_cast<std::size_t>(p.a)], labels[static_cast<std::size_t>(p.b)]));
    c.params.set("size", static_cast<std::int64_t>(p.bytes));
    c.param_units["size"] = "B";
    const auto metric = [&](const char* name, double value, const char* unit, const std::string& what) {
      c.metrics.push_back({name, value, unit, what});
    };
    metric("a_to_b_gbs", p.a_to_b_gbs, "GB/s",
           fmt::format("{} sending to {} alone", labels[static_cast<std::size_t>(p.a)],
                       labels[static_cast<std::size_t>(p.b)]));
    metric("b_to_a_gbs", p.b_to_a_gbs, "GB/s",
           fmt::format("{} sending to {} alone", labels[static_cast<std::size_t>(p.b)],
                       labels[static_cast<std::size_t>(p.a)]));
    metric("both_gbs", p.both_gbs, "GB/s", "both sending at once, bytes of both directions");
    metric("wrong_bytes", static_cast<double>(p.wrong_bytes), "B", "received bytes that differ from the exact pattern");
    c.work.bytes_written = static_cast<double>(p.bytes);
    c.notes["verification"] = "every byte received, both ways, against the exact pattern of its sender";
    if (p.wrong_bytes > 0) {
      c.status = core::case_status::invalid;
      c.reason = fmt::format("{} bytes received differ from what was sent", p.wrong_bytes);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::comm
