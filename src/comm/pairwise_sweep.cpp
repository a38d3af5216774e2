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
#include <numeric>
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

// This rank's exchanges with its partners, each timed alone, kept per (partner, size) until
// taken as JSON records.
class pair_measurer {
 public:
  pair_measurer(peer_exchange& peers, const pairwise_settings& s, int me_rank, std::size_t largest)
      : peers_(peers),
        s_(s),
        me_(me_rank),
        passes_(std::max(1, std::min(s.passes, s.iterations))),
        per_pass_((s.iterations + passes_ - 1) / passes_),
        send_(largest),
        receive_(largest),
        expected_(largest) {}

  [[nodiscard]] int passes() const { return passes_; }
  [[nodiscard]] int per_pass() const { return per_pass_; }

  /// Pass `t` with `peer` (whose participant index is `peer_index`) at the sizes
  /// `size_indices` of the settings: `warmup` untimed exchanges, then per_pass() exchanges both
  /// ways at once (when `both_ways`) and as many each way alone, each timed alone. `lower`:
  /// whether this rank's participant index is the lower of the pair. `pattern` numbers the data
  /// (the same in every exchange of a pair and size; the receive buffer is cleared before the
  /// pass's last exchange of each kind, and checked after it).
  void pass(int peer, int peer_index, bool lower, std::uint64_t pattern, const std::vector<std::size_t>& size_indices,
            int t, int warmup, bool both_ways) {
    const bool faulty = delays_exchange(s_.fault, me_, peer);
    const double delay_ms = faulty && !(s_.slowdown > 1) ? s_.fault.delay_ms : 0;
    const double slowdown = faulty ? s_.slowdown : 1;
    for (const auto k : size_indices) {
      const auto bytes = s_.sizes[k];
      const std::uint64_t seed = (pattern << 32) | (static_cast<std::uint64_t>(k) << 8);
      auto& kept = kept_[{peer_index, k}];
      fill_pair_pattern(send_.data(), bytes, me_, peer, seed);
      fill_pair_pattern(expected_.data(), bytes, peer, me_, seed);
      for (int i = 0; i < warmup; ++i) peers_.send_receive(peer, send_.data(), receive_.data(), bytes);
      for (int e = 0; e < per_pass_; ++e) {
        const bool last = e + 1 == per_pass_;
        // Both ways at once.
        if (both_ways) {
          if (last) std::memset(receive_.data(), 0, bytes);
          synchronize(peer);
          const auto start = pair_clock::now();
          timed([&] { peers_.send_receive(peer, send_.data(), receive_.data(), bytes); }, delay_ms, slowdown);
          kept.both_s.push_back(seconds_since(start));
          if (last) kept.wrong += mismatches(bytes);
        }
        // Each way alone (the sender's time up to the receiver's acknowledgement), the lower
        // participant first in even exchanges, the higher in odd ones.
        const bool even = (t * per_pass_ + e) % 2 == 0;
        for (const bool lower_sends : {even, !even}) {
          const bool sending = lower_sends == lower;
          if (!sending && last) std::memset(receive_.data(), 0, bytes);
          synchronize(peer);
          const auto start = pair_clock::now();
          unsigned char ack = 0;
          if (sending) {
            // The fault slows the whole timed span, the acknowledgement included.
            timed(
                [&] {
                  peers_.send(peer, send_.data(), bytes);
                  peers_.receive(peer, &ack, 1);
                },
                delay_ms, slowdown);
            kept.send_s.push_back(seconds_since(start));
          } else {
            timed([&] { peers_.receive(peer, receive_.data(), bytes); }, delay_ms, 1);
            peers_.send(peer, &ack, 1);
            if (last) kept.wrong += mismatches(bytes);
          }
        }
      }
    }
  }

  /// What the passes since the last take_records timed: [{"peer", "size", "send_s": [per
  /// exchange], "both_s": [...], "wrong"}].
  [[nodiscard]] json records() const {
    json records = json::array();
    for (const auto& [key, kept] : kept_) {
      records.push_back({{"peer", key.first},
                         {"size", key.second},
                         {"send_s", kept.send_s},
                         {"both_s", kept.both_s},
                         {"wrong", kept.wrong}});
    }
    return records;
  }

  /// records(), their wrong bytes added to `wrong`, and forgotten.
  json take_records(std::int64_t& wrong) {
    auto out = records();
    for (const auto& [key, kept] : kept_) wrong += kept.wrong;
    kept_.clear();
    return out;
  }

 private:
  struct kept_times {
    std::vector<double> send_s, both_s;
    std::int64_t wrong = 0;
  };

  // Before each timed exchange: a short sleep, then a handshake, so that the exchange starts
  // with both ends running. A rank waking from a sleep gets a busy core back at once, where one
  // that spins waits for its turn, and so does its exchange (by milliseconds on a loaded one).
  void synchronize(int peer) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    unsigned char out = 1, in = 0;
    peers_.send_receive(peer, &out, &in, 1);
  }
  static void pause_s(double seconds) {
    if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
  // One exchange with the injected fault: a sleep of `delay_ms` before it, or `slowdown` - 1
  // times its own length after it, spent as a rank waits on a slow transfer in MPI: polling,
  // yielding the core (as Open MPI's mpi_yield_when_idle does) rather than sleeping, which on a
  // busy machine would earn the rank the scheduler's favour over the ranks it is compared with.
  template <class Exchange>
  static void timed(const Exchange& exchange, double delay_ms, double slowdown) {
    pause_s(delay_ms / 1e3);
    const auto start = pair_clock::now();
    exchange();
    if (slowdown > 1) {
      const auto until = start + std::chrono::duration_cast<pair_clock::duration>(
                                     std::chrono::duration<double>(slowdown * seconds_since(start)));
      while (pair_clock::now() < until) std::this_thread::yield();
    }
  }
  std::int64_t mismatches(std::size_t bytes) const {
    if (std::memcmp(receive_.data(), expected_.data(), bytes) == 0) return 0;
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) wrong += receive_[i] != expected_[i] ? 1 : 0;
    return wrong;
  }

  peer_exchange& peers_;
  const pairwise_settings& s_;
  int me_;
  int passes_, per_pass_;
  std::vector<unsigned char> send_, receive_, expected_;
  std::map<std::pair<int, std::size_t>, kept_times> kept_;
};

// Rank 0: the measurements of `pairs` (participant pairs, each once) from every rank's records
// ((participant, peer, size index) -> record): each direction the fastest of its exchanges or,
// with `median`, their median.
std::vector<pair_measurement> measurements_of(const std::map<std::tuple<int, int, std::size_t>, json>& records,
                                              const std::vector<participant_pair>& pairs,
                                              const std::vector<std::size_t>& sizes, bool median = false) {
  std::vector<pair_measurement> out;
  const auto rate = [](double moved, double seconds) { return seconds > 0 ? moved / seconds * 1e-9 : no_value; };
  const auto best = [median](const std::vector<double>& v) {
    std::vector<double> finite;
    for (const double x : v) {
      if (std::isfinite(x)) finite.push_back(x);
    }
    if (finite.empty()) return no_value;
    std::sort(finite.begin(), finite.end());
    if (!median) return finite.back();
    const auto half = finite.size() / 2;
    return finite.size() % 2 == 1 ? finite[half] : (finite[half - 1] + finite[half]) / 2;
  };
  for (const auto& [a, b] : pairs) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const auto ab = records.find({a, b, k}), ba = records.find({b, a, k});
      if (ab == records.end() || ba == records.end()) continue;  // not measured (interrupted, or not this size)
      pair_measurement m;
      m.a = a;
      m.b = b;
      m.bytes = sizes[k];
      const double moved = static_cast<double>(m.bytes);
      std::vector<double> a_to_b, b_to_a;
      for (const auto& t : ab->second.at("send_s")) a_to_b.push_back(rate(moved, t.get<double>()));
      for (const auto& t : ba->second.at("send_s")) b_to_a.push_back(rate(moved, t.get<double>()));
      const auto& both_a = ab->second.at("both_s");
      const auto& both_b = ba->second.at("both_s");
      std::vector<double> both;
      for (std::size_t t = 0; t < std::min(both_a.size(), both_b.size()); ++t) {
        both.push_back(rate(2 * moved, std::max(both_a[t].get<double>(), both_b[t].get<double>())));
      }
      m.a_to_b_gbs = best(a_to_b);
      m.b_to_a_gbs = best(b_to_a);
      m.both_gbs = best(both);
      m.wrong_bytes = ab->second.at("wrong").get<std::int64_t>() + ba->second.at("wrong").get<std::int64_t>();
      out.push_back(m);
    }
  }
  return out;
}

// Rank 0: (participant, peer, size index) -> record, from every rank's gathered records.
std::map<std::tuple<int, int, std::size_t>, json> records_of(const std::vector<std::string>& texts) {
  std::map<std::tuple<int, int, std::size_t>, json> records;
  for (const auto& text : texts) {
    const auto doc = json::parse(text);
    const int who = doc.at("participant").get<int>();
    for (const auto& rec : doc.at("records")) {
      records[{who, rec.at("peer").get<int>(), rec.at("size").get<std::size_t>()}] = rec;
    }
  }
  return records;
}

std::vector<std::vector<double>> matrix_of(const std::vector<pair_measurement>& pairs, std::size_t n, std::size_t bytes,
                                           const std::string& kind) {
  std::vector<std::vector<double>> m(n, std::vector<double>(n, no_value));
  for (const auto& p : pairs) {
    if (p.bytes != bytes) continue;
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    if (a >= n || b >= n) continue;
    if (kind == "both") {
      m[a][b] = m[b][a] = p.both_gbs;
    } else {
      m[a][b] = p.a_to_b_gbs;
      m[b][a] = p.b_to_a_gbs;
    }
  }
  return m;
}

std::vector<size_matrix> judged_matrices(const std::vector<pair_measurement>& pairs, std::size_t n,
                                         const std::vector<std::size_t>& judged) {
  std::vector<size_matrix> out;
  for (const auto bytes : judged) out.push_back({bytes, matrix_of(pairs, n, bytes, "one_way")});
  return out;
}

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

std::vector<std::size_t> judged_pair_sizes(const std::vector<std::size_t>& sizes) {
  if (sizes.empty()) return {};
  return {*std::max_element(sizes.begin(), sizes.end())};
}

pair_fault parse_pair_fault(const std::string& text) {
  const auto at = text.find('@');
  const auto x = text.find(":x");
  const auto name = text.substr(0, std::min(at, text.size()));
  if (at == std::string::npos || x == std::string::npos || x < at || (name != "slow" && name != "slow-link")) {
    return {parse_fault(text), 1};
  }
  pair_fault f;
  f.fault = parse_fault(text.substr(0, x));
  const auto factor = text.substr(x + 2);
  f.slowdown = parse_number(factor, "--inject-fault slowdown (xK)");
  if (!(f.slowdown > 1 && f.slowdown <= 100)) {
    throw usage_error(
        fmt::format("--inject-fault {}: the slowdown xK takes K above 1 and at most 100, not '{}'", text, factor));
  }
  return f;
}

std::string to_string(const pair_fault& f) {
  if (!(f.slowdown > 1)) return to_string(f.fault);
  return fmt::format("{}:x{:g}", to_string(f.fault), f.slowdown);
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
  check_fault_applies(pair_fault{fault, 1}, participants, mode);
}

void check_fault_applies(const pair_fault& pair, const std::vector<pair_participant>& participants, pair_mode mode) {
  const auto& fault = pair.fault;
  if (fault.kind != fault_kind::slow && fault.kind != fault_kind::slow_link) return;
  const auto takes_part = [&](int rank) {
    return std::any_of(participants.begin(), participants.end(),
                       [&](const pair_participant& p) { return p.rank == rank; });
  };
  for (const int rank : {fault.rank, fault.peer}) {
    if (rank < 0 || takes_part(rank)) continue;
    throw usage_error(fmt::format("--inject-fault {}: rank {} takes no part in --pairs {} (the ranks that measure: {})",
                                  to_string(pair), rank, to_string(mode), measuring_ranks(participants)));
  }
}

std::vector<std::vector<double>> pair_matrix(const pairwise_result& r, std::size_t bytes, const std::string& kind) {
  return matrix_of(r.pairs, r.participants.size(), bytes, kind);
}

pair_findings judge_pairs(const pairwise_result& r, double factor, bool last) {
  const auto n = r.participants.size();
  const auto judged = r.judged_sizes.empty() ? judged_pair_sizes(r.sizes) : r.judged_sizes;
  if (judged.empty()) return analyse_pairs(matrix_of({}, n, 0, "one_way"), factor);
  return confirm_suspects(analyse_pairs(judged_matrices(r.pairs, n, judged), factor),
                          judged_matrices(r.confirmations, n, judged), last);
}

std::vector<std::string> participant_labels(const pairwise_result& r) {
  std::vector<std::string> labels;
  for (const auto& p : r.participants) labels.push_back(p.label);
  return labels;
}

namespace {

// A sweep's result before anything is measured: its settings, and the ranks that take part
// (every rank's node name gathered). Throws usage_error for settings the sweep cannot run.
pairwise_result begin_pairwise(bootstrap& world, const std::string& host_name, const pairwise_settings& s) {
  pairwise_result result;
  result.mode = s.mode;
  result.ranks = world.size();
  result.sizes = s.sizes;
  result.judged_sizes = judged_pair_sizes(s.sizes);
  result.iterations = s.iterations;
  result.warmup_iterations = s.warmup_iterations;
  const pair_fault fault{s.fault, s.slowdown};
  result.fault = to_string(fault);
  if (s.sizes.empty() || s.iterations < 1 || s.warmup_iterations < 0 || s.passes < 1) {
    throw usage_error("--pairs needs at least one size, --iters >= 1, --warmup_iters >= 0 and at least one pass");
  }
  const auto hosts = every_node_name(world, host_name);
  result.participants = select_participants(s.mode, hosts);
  if (world.size() < 2) {
    throw usage_error("--pairs needs at least 2 ranks: run it under mpirun or srun (one rank per node, or more)");
  }
  if (result.participants.size() < 2) {
    throw usage_error(
        fmt::format("--pairs nodes: all {} ranks are on one node ({}); run ranks on several nodes, give each "
                    "its node's name in IRONBENCH_NODE_NAME, or use --pairs ranks",
                    world.size(), hosts.front()));
  }
  check_fault_applies(fault, result.participants, s.mode);
  return result;
}

// The positions in `sizes` of the sizes that are also in `some`.
std::vector<std::size_t> indices_of(const std::vector<std::size_t>& some, const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> indices;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    if (std::find(some.begin(), some.end(), sizes[k]) != some.end()) indices.push_back(k);
  }
  return indices;
}

// Rank 0's `links`, on every rank.
std::vector<participant_pair> broadcast_links(bootstrap& world, const std::vector<participant_pair>& links) {
  std::vector<std::int32_t> ends;
  for (const auto& [a, b] : links) {
    ends.push_back(a);
    ends.push_back(b);
  }
  auto count = static_cast<std::int32_t>(ends.size());
  world.broadcast_bytes(&count, sizeof count);
  ends.resize(static_cast<std::size_t>(count));
  if (count > 0) world.broadcast_bytes(ends.data(), ends.size() * sizeof(std::int32_t));
  std::vector<participant_pair> out;
  for (std::size_t i = 0; i + 1 < ends.size(); i += 2) out.emplace_back(ends[i], ends[i + 1]);
  return out;
}

// Where `rank` stands among `participants` (-1: it takes no part).
int position_of(const std::vector<pair_participant>& participants, int rank) {
  for (std::size_t i = 0; i < participants.size(); ++i) {
    if (participants[i].rank == rank) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

pairwise_result run_pairwise(bootstrap& world, peer_exchange& peers, const std::string& host_name,
                             const pairwise_settings& s, const std::atomic<bool>* cancel) {
  const auto start = pair_clock::now();
  auto result = begin_pairwise(world, host_name, s);
  const int n = static_cast<int>(result.participants.size());
  const int rank = world.rank();
  enact_start_fault(s.fault, rank);
  const int me = position_of(result.participants, rank);
  const auto rounds = pairwise_rounds(n);
  result.rounds = static_cast<int>(rounds.size());
  pair_measurer measurer(peers, s, rank, me >= 0 ? *std::max_element(s.sizes.begin(), s.sizes.end()) : 0);
  result.passes = measurer.passes();
  result.exchanges_per_pass = measurer.per_pass();
  std::vector<std::size_t> every_size(s.sizes.size());
  std::iota(every_size.begin(), every_size.end(), std::size_t{0});
  const auto judged_indices = indices_of(result.judged_sizes, s.sizes);
  // Every rank enters each step (the watchdog's operations) before the vote on stopping.
  const auto step = [&](const std::string& name) {
    if (s.progress) s.progress(name);
    if (cancel != nullptr && world.max(cancel->load() ? 1.0 : 0.0) > 0) result.interrupted = true;
    return !result.interrupted;
  };
  // The passes go over all of `steps` (each a set of disjoint pairs), so that a pair's exchanges
  // are spread over the whole sweep and a moment of load elsewhere on the machine (or the
  // network) slows a few exchanges of many pairs rather than every exchange of one.
  const auto measure_steps = [&](const std::vector<std::vector<participant_pair>>& steps, const std::string& what,
                                 std::size_t first_pattern, const std::vector<std::size_t>& size_indices,
                                 bool both_ways) {
    for (int t = 0; t < result.passes; ++t) {
      for (std::size_t r = 0; r < steps.size(); ++r) {
        if (!step(fmt::format("{} {}/{} of pass {}/{}", what, r + 1, steps.size(), t + 1, result.passes))) return;
        const int partner = me >= 0 ? partner_in(steps[r], me) : -1;
        if (partner >= 0) {
          const int peer = result.participants[static_cast<std::size_t>(partner)].rank;
          measurer.pass(peer, partner, me < partner, first_pattern + r, size_indices, t,
                        t == 0 ? s.warmup_iterations : std::min(1, s.warmup_iterations), both_ways);
        }
        world.barrier();
      }
    }
  };
  std::int64_t wrong = 0;
  measure_steps(rounds, "pairs round", 0, every_size, true);
  auto texts = world.gather(core::json_text(json{{"participant", me}, {"records", measurer.take_records(wrong)}}));
  result.rounds_seconds = seconds_since(start);

  // Rank 0 judges the rounds; every suspect is measured again with its control links, one pair
  // at a time, at the judged sizes, and those neither low nor cleared once more, their exchanges
  // pooled with those before, up to pair_confirm_rounds times (only the suspects slow again
  // against the controls are named).
  std::vector<participant_pair> all_pairs;
  for (const auto& round : rounds) all_pairs.insert(all_pairs.end(), round.begin(), round.end());
  const auto judged = result.judged_sizes;
  if (rank == 0) {
    result.pairs = measurements_of(records_of(texts), all_pairs, s.sizes);
    result.findings = judge_pairs(result, s.outlier_factor, false);
  }
  const auto confirm_start = pair_clock::now();
  std::vector<participant_pair> again;  // every link measured again, once each
  int confirm_rounds = 0;
  for (int round = 0; round < pair_confirm_rounds; ++round) {
    const auto links = broadcast_links(
        world, rank == 0 ? links_to_measure_again(result.findings, round > 0) : std::vector<participant_pair>());
    if (links.empty() || result.interrupted) break;  // alike on every rank
    std::vector<std::vector<participant_pair>> one_at_a_time;
    for (const auto& link : links) {
      one_at_a_time.push_back({link});
      if (std::find(again.begin(), again.end(), link) == again.end()) again.push_back(link);
    }
    measure_steps(one_at_a_time, fmt::format("pairs measured again ({}/{})", round + 1, pair_confirm_rounds),
                  rounds.size() + one_at_a_time.size() * static_cast<std::size_t>(round), judged_indices, false);
    confirm_rounds = round + 1;
    // Every exchange measured again so far: each direction the median of them all.
    texts = world.gather(core::json_text(json{{"participant", me}, {"records", measurer.records()}}));
    if (rank == 0) {
      result.confirmations = measurements_of(records_of(texts), again, s.sizes, true);
      result.findings =
          confirm_suspects(result.findings, judged_matrices(result.confirmations, static_cast<std::size_t>(n), judged),
                           confirm_rounds == pair_confirm_rounds);
    }
  }
  (void)measurer.take_records(wrong);
  result.wrong_bytes = static_cast<std::int64_t>(world.sum(static_cast<double>(wrong)));
  result.confirm_seconds = seconds_since(confirm_start);
  result.seconds = seconds_since(start);
  if (rank != 0) return result;
  // The undecided left (by an interruption, or between the margins after the last round) are
  // not named.
  result.findings =
      confirm_suspects(result.findings, judged_matrices(result.confirmations, static_cast<std::size_t>(n), judged));
  result.findings.confirm_rounds = confirm_rounds;
  return result;
}

}  // namespace ironbench::comm
