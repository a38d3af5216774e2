// Faults to test the failure handling with (--inject-fault): a rank that hangs, dies, is slow
// in every operation, or a link between two ranks that is slow. Parsed once; each workload
// (collectives, pairwise sweeps, training steps) applies the kinds it can.
#pragma once

#include <string>

namespace ironbench::comm {

enum class fault_kind {
  none,
  hang,       ///< hang@R: rank R stops (sleeps forever) before its first operation
  exit,       ///< exit@R: rank R dies (exit status 3) before its first operation
  slow,       ///< slow@R[:MS]: rank R sleeps MS ms before every measured operation
  slow_link,  ///< slow-link@A-B[:MS]: every exchange between ranks A and B is delayed MS ms
};

struct injected_fault {
  fault_kind kind = fault_kind::none;
  int rank = -1;        ///< the rank (hang, exit, slow) or the lower rank of the link
  int peer = -1;        ///< the link's other rank (slow_link), else -1
  double delay_ms = 0;  ///< slow and slow_link (default 20 ms)
};

/// Default delay of slow@R and slow-link@A-B without :MS.
inline constexpr double default_fault_delay_ms = 20;

/// Parses --inject-fault: "" (none), hang@R, exit@R, slow@R[:MS] or slow-link@A-B[:MS] (A != B,
/// stored with rank < peer); throws usage_error naming the accepted forms otherwise.
[[nodiscard]] injected_fault parse_fault(const std::string& text);

/// The --inject-fault value `fault` was parsed from (empty for none).
[[nodiscard]] std::string to_string(const injected_fault& fault);

/// Whether `fault` delays an exchange between ranks `a` and `b`: slow on either, or slow_link
/// between exactly them.
[[nodiscard]] bool delays_exchange(const injected_fault& fault, int a, int b);

/// Throws usage_error when `fault` names a rank the job of `ranks` ranks does not have.
void check_fault_rank(const injected_fault& fault, int ranks);

/// Applies hang@R and exit@R on rank `rank` before its first operation: rank R says so and exits
/// with status 3 (exit), or sleeps forever (hang). Returns at once for any other fault or rank.
void enact_start_fault(const injected_fault& fault, int rank);

}  // namespace ironbench::comm
