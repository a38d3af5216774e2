// Which ranks a hung job waits for. Every rank reports, over a side channel that does not go
// through the stuck communicator (comm/progress_channel.hpp), the number and name of the last
// operation it entered, and a keepalive each second; when the job stops making progress, the
// ranks behind the furthest one, the ranks whose keepalives stopped (a stopped or frozen
// process) and the ranks that vanished are the ones the others wait for. When a rank dies the
// job cannot go on: the verdict names the dead ranks at once. Pure functions: the wire format
// of the reports, and the verdict from the last report of every rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace ironbench::comm {

/// One line a rank sends to rank 0's monitor.
struct progress_message {
  enum class kind {
    hello,  ///< "ironbench-progress 1 TOKEN RANK HOST": the first line, once per connection
    enter,  ///< "enter N NAME": entered operation number N (1, 2, ...), named NAME
    alive,  ///< "alive": nothing new, still running (a keepalive)
    done,   ///< "done": finished; the connection closes on purpose (either side: rank 0 says it too)
    over,   ///< "over" (rank 0 to the others): rank 0 wrote the verdict and ends the job
  };
  kind what = kind::alive;
  std::uint64_t token = 0;      ///< hello
  int rank = -1;                ///< hello
  std::string host;             ///< hello (the rest of the line; may hold spaces)
  std::uint64_t operation = 0;  ///< enter
  std::string name;             ///< enter (the rest of the line)
};

/// Longest line either side sends or accepts, newline included.
inline constexpr std::size_t progress_line_limit = 512;

/// The line for `message`, newline-terminated; control characters in names become spaces and
/// names are cut so that the line fits progress_line_limit.
[[nodiscard]] std::string encode_progress(const progress_message& message);

/// Parses one line (without its newline); nullopt for anything that is not exactly one of the
/// forms above (unknown word, missing or non-numeric field, negative rank, too long).
[[nodiscard]] std::optional<progress_message> parse_progress(std::string_view line);

/// What rank 0 knows of one rank when the job stops making progress.
struct rank_progress {
  enum class link {
    reporting,        ///< connected and reporting
    finished,         ///< said "done" and closed
    dropped,          ///< its connection closed without "done": the process died
    never_connected,  ///< it never reached the monitor (it died, or hung, before start-up ended)
    unmonitored,      ///< it could not reach the monitor at start-up (said so); no verdict on it
    silent,           ///< (verdicts only) connected, but no keepalive for longer than the limit
  };
  int rank = 0;
  std::string host;
  link state = link::reporting;
  std::uint64_t operation = 0;  ///< the last operation it entered (0: none yet)
  std::string name;             ///< that operation's name
  double silent_s = 0;          ///< reporting: seconds since rank 0 last heard from it
};

/// Keepalive period of the side channel, in seconds: each rank says something at least this often.
inline constexpr double keepalive_period_s = 1.0;
/// A reporting rank silent for longer than this is named "stopped responding": 5 keepalives
/// missed (a process stopped by SIGSTOP or a debugger, a frozen host, a broken link).
inline constexpr double silent_limit_s = 5.0;

/// Why the job is judged.
enum class hang_cause {
  no_progress,  ///< the watchdog's timeout passed without progress
  rank_died,    ///< rank 0 saw a rank's side channel close without "done"
  rank0_died,   ///< another rank saw rank 0's side channel close without "done" or "over"
};

[[nodiscard]] const char* to_string(hang_cause cause);

[[nodiscard]] const char* to_string(rank_progress::link state);

/// One rank named as a culprit.
struct hang_culprit {
  int rank = 0;
  std::string host;
  std::string why;  ///< "never entered #4 (all_reduce 8 B in place); last in #3 (...)", "died in #3 (...)"
  rank_progress::link state = rank_progress::link::reporting;
  std::uint64_t operation = 0;  ///< its last operation (0: none, or unknown when `known` is false)
  std::string name;
  double silent_s = 0;  ///< state silent: seconds without a keepalive
  bool known = true;    ///< whether `operation` is known (not to a rank other than 0 judging rank 0)
};

/// The verdict on a hung job.
struct hang_verdict {
  hang_cause cause = hang_cause::no_progress;
  int reporter = 0;            ///< the rank that judged (0, or the lowest rank alive when rank 0 died)
  std::uint64_t furthest = 0;  ///< the highest operation any rank entered (the reporter's own, rank0_died)
  std::string furthest_name;
  std::vector<hang_culprit> culprits;  ///< in rank order; empty when every rank is in `furthest`
  std::vector<int> unmonitored;        ///< ranks with no verdict (could not reach the monitor)
};

/// The ranks the job waits for. With no_progress: every rank whose last operation is below the
/// furthest any rank entered, every reporting rank silent for longer than `silent_limit`
/// (named even when it entered the furthest operation), every rank whose connection dropped,
/// and every rank that never connected. With rank_died: the ranks whose connection dropped and
/// the silent ones (a rank behind is only on its way). Ranks that finished are not culprits;
/// unmonitored ones are listed apart.
[[nodiscard]] hang_verdict judge_hang(const std::vector<rank_progress>& ranks,
                                      hang_cause cause = hang_cause::no_progress, double silent_limit = silent_limit_s);

/// How long to wait before judging `ranks`, in seconds: a reporting rank that missed a
/// keepalive (silent for more than 1.5 periods) but is not yet past `silent_limit` may be
/// stopped or only late; waiting until it passes the limit (plus a quarter period) or speaks
/// tells which. 0 when no rank is in doubt.
[[nodiscard]] double verdict_wait_s(const std::vector<rank_progress>& ranks, double silent_limit = silent_limit_s,
                                    double keepalive_s = keepalive_period_s);

/// The verdict of rank `reporter`, the lowest rank still alive, when rank 0's side channel
/// closed: rank 0 and every rank in `dead` died (their last operations unknown to it);
/// `hosts` holds every rank's host; the furthest operation is the reporter's own last.
[[nodiscard]] hang_verdict judge_lost_monitor(int reporter, std::uint64_t operation, const std::string& name,
                                              const std::vector<int>& dead, const std::vector<std::string>& hosts);

/// The one line naming the culprits (no "ironbench: error:" prefix, no newline), e.g.
/// "no progress for 3 s: the job waits for rank 2 (host b), which never entered operation #5
/// (all_reduce 8 B out of place); its last was #4 (...)", or for a death "the job lost rank 1
/// (host a), which died (its side channel closed) after entering operation #5 (...)".
[[nodiscard]] std::string hang_line(const hang_verdict& verdict, double timeout_s);

/// The verdict as stored in a run's settings.hang: cause (no_progress, rank_died, rank0_died),
/// reported_by, timeout_s, silent_limit_s, furthest_operation {number, name}, culprits [{rank,
/// host, state, last_operation, last_operation_name, why, silent_s (state stopped_responding)}],
/// summary (the line), unmonitored_ranks.
[[nodiscard]] json hang_json(const hang_verdict& verdict, double timeout_s);

}  // namespace ironbench::comm
