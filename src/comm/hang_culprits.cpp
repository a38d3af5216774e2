#include "comm/hang_culprits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace ironbench::comm {
namespace {

constexpr std::string_view hello_word = "ironbench-progress";
constexpr std::string_view protocol_version = "2";

// Printable text for a line: control characters become spaces, cut to `limit` bytes.
std::string clean(std::string_view text, std::size_t limit) {
  std::string out(text.substr(0, limit));
  for (auto& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

// Splits off the first space-separated word of `rest`.
std::string_view next_word(std::string_view& rest) {
  const auto end = std::min(rest.find(' '), rest.size());
  const auto word = rest.substr(0, end);
  rest = end < rest.size() ? rest.substr(end + 1) : std::string_view();
  return word;
}

template <typename T>
std::optional<T> number(std::string_view word) {
  T value{};
  if (word.empty()) return std::nullopt;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc() || end != word.data() + word.size()) return std::nullopt;
  return value;
}

std::string operation_text(std::uint64_t number, const std::string& name) {
  if (number == 0) return "none (start-up)";
  return name.empty() ? fmt::format("operation #{}", number) : fmt::format("operation #{} ({})", number, name);
}

// "after entering operation #3 (...)", or for a rank that entered none "during start-up".
std::string after_entering(std::uint64_t number, const std::string& name) {
  if (number == 0) return "during start-up (before its first operation)";
  return "after entering " + operation_text(number, name);
}

}  // namespace

std::string encode_progress(const progress_message& m) {
  // Room for the words before the free text: "ironbench-progress 1 " + 20 + 11 digits, spaces.
  constexpr std::size_t text_room = progress_line_limit - 64;
  switch (m.what) {
    case progress_message::kind::hello:
      return fmt::format("{} {} {} {} {}\n", hello_word, protocol_version, m.token, m.rank, clean(m.host, text_room));
    case progress_message::kind::enter: return fmt::format("enter {} {}\n", m.operation, clean(m.name, text_room));
    case progress_message::kind::alive: return "alive\n";
    case progress_message::kind::done: return "done\n";
    case progress_message::kind::over: return "over\n";
  }
  return "alive\n";
}

std::optional<progress_message> parse_progress(std::string_view line) {
  if (line.size() >= progress_line_limit) return std::nullopt;
  progress_message m;
  auto rest = line;
  const auto word = next_word(rest);
  if (word == "alive" || word == "done" || word == "over") {
    if (!rest.empty() || line.size() != word.size()) return std::nullopt;
    m.what = word == "alive"  ? progress_message::kind::alive
             : word == "done" ? progress_message::kind::done
                              : progress_message::kind::over;
    return m;
  }
  if (word == "enter") {
    const auto operation = number<std::uint64_t>(next_word(rest));
    if (!operation || *operation == 0) return std::nullopt;
    m.what = progress_message::kind::enter;
    m.operation = *operation;
    m.name = std::string(rest);
    return m;
  }
  if (word == hello_word) {
    if (next_word(rest) != protocol_version) return std::nullopt;
    const auto token = number<std::uint64_t>(next_word(rest));
    const auto rank = number<int>(next_word(rest));
    if (!token || !rank || *rank < 0) return std::nullopt;
    m.what = progress_message::kind::hello;
    m.token = *token;
    m.rank = *rank;
    m.host = std::string(rest);
    return m;
  }
  return std::nullopt;
}

const char* to_string(rank_progress::link state) {
  switch (state) {
    case rank_progress::link::reporting: return "reporting";
    case rank_progress::link::finished: return "finished";
    case rank_progress::link::dropped: return "died";
    case rank_progress::link::never_connected: return "never_connected";
    case rank_progress::link::unmonitored: return "unmonitored";
    case rank_progress::link::silent: return "stopped_responding";
  }
  return "?";
}

const char* to_string(hang_cause cause) {
  switch (cause) {
    case hang_cause::no_progress: return "no_progress";
    case hang_cause::rank_died: return "rank_died";
    case hang_cause::rank0_died: return "rank0_died";
  }
  return "?";
}

hang_verdict judge_hang(const std::vector<rank_progress>& ranks, hang_cause cause, double silent_limit) {
  using link = rank_progress::link;
  hang_verdict v;
  v.cause = cause;
  for (const auto& r : ranks) {
    if (r.state == link::never_connected || r.state == link::unmonitored) continue;
    if (r.operation > v.furthest || (r.operation == v.furthest && v.furthest_name.empty())) {
      v.furthest = r.operation;
      v.furthest_name = r.name;
    }
  }
  const auto furthest = operation_text(v.furthest, v.furthest_name);
  auto sorted = ranks;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  for (const auto& r : sorted) {
    hang_culprit c{r.rank, r.host, "", r.state, r.operation, r.name};
    const bool silent = r.state == link::reporting && r.silent_s > silent_limit;
    switch (silent ? link::silent : r.state) {
      case link::finished: continue;
      case link::unmonitored: v.unmonitored.push_back(r.rank); continue;
      case link::dropped:
        c.why = fmt::format("died (its side channel closed) {}", after_entering(r.operation, r.name));
        break;
      case link::never_connected:
        if (cause != hang_cause::no_progress) continue;  // still on its way, perhaps
        c.why = "never reached rank 0's progress monitor (it died or hung at start-up)";
        break;
      case link::silent:
        c.state = link::silent;
        c.silent_s = r.silent_s;
        c.why = fmt::format("stopped responding (no keepalive for {:.0f} s) {}", r.silent_s,
                            after_entering(r.operation, r.name));
        break;
      case link::reporting:
        if (cause != hang_cause::no_progress || r.operation >= v.furthest) continue;
        c.why = fmt::format("never entered {}; its last was {}", furthest, operation_text(r.operation, r.name));
        break;
    }
    v.culprits.push_back(std::move(c));
  }
  return v;
}

double verdict_wait_s(const std::vector<rank_progress>& ranks, double silent_limit, double keepalive_s) {
  double wait = 0;
  for (const auto& r : ranks) {
    if (r.state != rank_progress::link::reporting) continue;
    if (r.silent_s > 1.5 * keepalive_s && r.silent_s <= silent_limit) {
      wait = std::max(wait, silent_limit - r.silent_s + 0.25 * keepalive_s);
    }
  }
  return wait;
}

hang_verdict judge_lost_monitor(int reporter, std::uint64_t operation, const std::string& name,
                                const std::vector<int>& dead, const std::vector<std::string>& hosts) {
  hang_verdict v;
  v.cause = hang_cause::rank0_died;
  v.reporter = reporter;
  v.furthest = operation;
  v.furthest_name = name;
  auto ranks = dead;
  ranks.push_back(0);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (const int r : ranks) {
    if (r < 0 || r == reporter) continue;
    hang_culprit c;
    c.rank = r;
    c.host = static_cast<std::size_t>(r) < hosts.size() ? hosts[static_cast<std::size_t>(r)] : "";
    c.state = rank_progress::link::dropped;
    c.known = false;
    c.why = r == 0 ? fmt::format("died (its side channel to rank {} closed)", reporter)
                   : "died (it no longer answers on its side channel)";
    v.culprits.push_back(std::move(c));
  }
  return v;
}

std::string hang_line(const hang_verdict& v, double timeout_s) {
  const auto furthest = operation_text(v.furthest, v.furthest_name);
  std::string line;
  if (v.cause != hang_cause::no_progress) {
    std::string names;
    for (const auto& c : v.culprits) {
      names += fmt::format("{}rank {} (host {}), which {}", names.empty() ? "" : "; ", c.rank,
                           c.host.empty() ? "?" : c.host, c.why);
    }
    line = fmt::format("the job lost {}", names.empty() ? std::string("a rank") : names);
    if (v.cause == hang_cause::rank0_died) {
      line +=
          fmt::format("; rank {}, the lowest rank alive, reports it (its last operation: {})", v.reporter, furthest);
    }
  } else if (v.culprits.empty()) {
    line = fmt::format(
        "no progress for {:g} s in {}: every rank entered it, so no rank is missing (a link, the network or the "
        "collective library hangs)",
        timeout_s, furthest);
  } else {
    std::string names;
    for (const auto& c : v.culprits) {
      names += fmt::format("{}rank {} (host {}), which {}", names.empty() ? "" : "; ", c.rank,
                           c.host.empty() ? "?" : c.host, c.why);
    }
    line = fmt::format("no progress for {:g} s: the job waits for {}", timeout_s, names);
  }
  if (!v.unmonitored.empty()) {
    std::string ranks;
    for (const int r : v.unmonitored) ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ", r);
    line += fmt::format(" (no verdict on rank{} {}: unreachable from rank 0's monitor)",
                        v.unmonitored.size() == 1 ? "" : "s", ranks);
  }
  return line;
}

json hang_json(const hang_verdict& v, double timeout_s) {
  json culprits = json::array();
  for (const auto& c : v.culprits) {
    json one = {{"rank", c.rank}, {"host", c.host}, {"state", to_string(c.state)}, {"why", c.why}};
    if (c.known) {
      one["last_operation"] = c.operation;
      one["last_operation_name"] = c.name;
    }
    if (c.state == rank_progress::link::silent) one["silent_s"] = c.silent_s;
    culprits.push_back(std::move(one));
  }
  return {{"cause", to_string(v.cause)},
          {"reported_by", v.reporter},
          {"timeout_s", timeout_s},
          {"silent_limit_s", silent_limit_s},
          {"furthest_operation", {{"number", v.furthest}, {"name", v.furthest_name}}},
          {"culprits", std::move(culprits)},
          {"unmonitored_ranks", v.unmonitored},
          {"summary", hang_line(v, timeout_s)}};
}

}  // namespace ironbench::comm
