// Which ranks a hung job waits for. Every rank reports, over a side channel that does not go
// through the stuck communicator (comm/progress_channel.hpp), the number and name of the last
// operation it entered; when the job stops making progress, the ranks behind the furthest one,
// and the ranks that vanished, are the ones the others wait for. Pure functions: the wire
// format of the reports, and the verdict from the last report of every rank.
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
    done,   ///< "done": finished; the connection closes on purpose
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
  };
  int rank = 0;
  std::string host;
  link state = link::reporting;
  std::uint64_t operation = 0;  ///< the last operation it entered (0: none yet)
  std::string name;             ///< that operation's name
};

[[nodiscard]] const char* to_string(rank_progress::link state);

/// One rank named as a culprit.
struct hang_culprit {
  int rank = 0;
  std::string host;
  std::string why;  ///< "never entered #4 (all_reduce 8 B in place); last in #3 (...)", "died in #3 (...)"
  rank_progress::link state = rank_progress::link::reporting;
  std::uint64_t operation = 0;  ///< its last operation
  std::string name;
};

/// The verdict on a hung job.
struct hang_verdict {
  std::uint64_t furthest = 0;  ///< the highest operation any rank entered
  std::string furthest_name;
  std::vector<hang_culprit> culprits;  ///< in rank order; empty when every rank is in `furthest`
  std::vector<int> unmonitored;        ///< ranks with no verdict (could not reach the monitor)
};

/// The ranks the job waits for: every rank whose last operation is below the furthest any rank
/// entered, every rank whose connection dropped, and every rank that never connected. Ranks
/// that finished are not culprits; unmonitored ones are listed apart.
[[nodiscard]] hang_verdict judge_hang(const std::vector<rank_progress>& ranks);

/// The one line naming the culprits (no "ironbench: error:" prefix, no newline), e.g.
/// "no progress for 3 s: waiting for rank 2 (host b), which never entered operation #5
/// (all_reduce 8 B out of place), the operation the furthest ranks are in".
[[nodiscard]] std::string hang_line(const hang_verdict& verdict, double timeout_s);

/// The verdict as stored in a run's settings.hang: timeout_s, furthest_operation {number,
/// name}, culprits [{rank, host, state, last_operation, last_operation_name, why}], summary
/// (the line), unmonitored_ranks.
[[nodiscard]] json hang_json(const hang_verdict& verdict, double timeout_s);

}  // namespace ironbench::comm
