#include "comm/injected_fault.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "core/error.hpp"
#include "core/units.hpp"

namespace ironbench::comm {
namespace {

constexpr const char* accepted = "hang@RANK, exit@RANK, slow@RANK[:MS] or slow-link@RANK-RANK[:MS]";

[[noreturn]] void refuse(const std::string& text) {
  throw usage_error(fmt::format("--inject-fault takes {}, not '{}'", accepted, text));
}

int parse_rank(const std::string& text, const std::string& whole) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) refuse(whole);
  const auto rank = parse_integer(text, "--inject-fault rank");
  if (rank < 0 || rank > 1'000'000) refuse(whole);
  return static_cast<int>(rank);
}

}  // namespace

injected_fault parse_fault(const std::string& text) {
  if (text.empty()) return {};
  const auto at = text.find('@');
  if (at == std::string::npos) refuse(text);
  const auto name = text.substr(0, at);
  auto where = text.substr(at + 1);
  injected_fault f;
  if (name == "hang" || name == "exit") {
    f.kind = name == "hang" ? fault_kind::hang : fault_kind::exit;
    f.rank = parse_rank(where, text);
    return f;
  }
  if (name != "slow" && name != "slow-link") refuse(text);
  f.kind = name == "slow" ? fault_kind::slow : fault_kind::slow_link;
  f.delay_ms = default_fault_delay_ms;
  if (const auto colon = where.find(':'); colon != std::string::npos) {
    f.delay_ms = parse_number(where.substr(colon + 1), "--inject-fault delay (ms)");
    if (!(f.delay_ms > 0) || f.delay_ms > 3.6e6) {
      throw usage_error(fmt::format("--inject-fault: the delay must be above 0 and at most an hour (in ms), not '{}'",
                                    where.substr(colon + 1)));
    }
    where = where.substr(0, colon);
  }
  if (f.kind == fault_kind::slow) {
    f.rank = parse_rank(where, text);
    return f;
  }
  const auto dash = where.find('-');
  if (dash == std::string::npos) refuse(text);
  const int a = parse_rank(where.substr(0, dash), text);
  const int b = parse_rank(where.substr(dash + 1), text);
  if (a == b) throw usage_error(fmt::format("--inject-fault {}: a link joins two different ranks", text));
  f.rank = std::min(a, b);
  f.peer = std::max(a, b);
  return f;
}

std::string to_string(const injected_fault& f) {
  const auto delay = [&] { return f.delay_ms == default_fault_delay_ms ? "" : fmt::format(":{:g}", f.delay_ms); };
  switch (f.kind) {
    case fault_kind::none: return "";
    case fault_kind::hang: return fmt::format("hang@{}", f.rank);
    case fault_kind::exit: return fmt::format("exit@{}", f.rank);
    case fault_kind::slow: return fmt::format("slow@{}{}", f.rank, delay());
    case fault_kind::slow_link: return fmt::format("slow-link@{}-{}{}", f.rank, f.peer, delay());
  }
  return "";
}

bool delays_exchange(const injected_fault& f, int a, int b) {
  if (f.kind == fault_kind::slow) return a == f.rank || b == f.rank;
  if (f.kind == fault_kind::slow_link) return std::min(a, b) == f.rank && std::max(a, b) == f.peer;
  return false;
}

void check_fault_rank(const injected_fault& f, int ranks) {
  if (f.kind == fault_kind::none) return;
  if (f.rank >= ranks || f.peer >= ranks) {
    throw usage_error(fmt::format("--inject-fault {}: the job has {} ranks (0 to {})", to_string(f), ranks, ranks - 1));
  }
}

void enact_start_fault(const injected_fault& f, int rank) {
  if (f.rank != rank) return;
  if (f.kind == fault_kind::exit) {
    std::fputs(fmt::format("ironbench: rank {} exits now (--inject-fault exit@{})\n", rank, rank).c_str(), stderr);
    std::fflush(stderr);
    std::_Exit(3);
  }
  if (f.kind == fault_kind::hang) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

}  // namespace ironbench::comm
