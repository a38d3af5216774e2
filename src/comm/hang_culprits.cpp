#include "comm/hang_culprits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace ironbench::comm {
namespace {

constexpr std::string_view hello_word = "ironbench-progress";
constexpr std::string_view protocol_version = "1";

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
  }
  return "alive\n";
}

std::optional<progress_message> parse_progress(std::string_view line) {
  if (line.size() >= progress_line_limit) return std::nullopt;
  progress_message m;
  auto rest = line;
  const auto word = next_word(rest);
  if (word == "alive" || word == "done") {
    if (!rest.empty() || line.size() != word.size()) return std::nullopt;
    m.what = word == "alive" ? progress_message::kind::alive : progress_message::kind::done;
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
  }
  return "?";
}

hang_verdict judge_hang(const std::vector<rank_progress>& ranks) {
  using link = rank_progress::link;
  hang_verdict v;
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
    switch (r.state) {
      case link::finished: continue;
      case link::unmonitored: v.unmonitored.push_back(r.rank); continue;
      case link::dropped:
        c.why = fmt::format("died (its side channel closed) after entering {}", operation_text(r.operation, r.name));
        break;
      case link::never_connected:
        c.why = "never reached rank 0's progress monitor (it died or hung at start-up)";
        break;
      case link::reporting:
        if (r.operation >= v.furthest) continue;
        c.why = fmt::format("never entered {}; its last was {}", furthest, operation_text(r.operation, r.name));
        break;
    }
    v.culprits.push_back(std::move(c));
  }
  return v;
}

std::string hang_line(const hang_verdict& v, double timeout_s) {
  const auto furthest = operation_text(v.furthest, v.furthest_name);
  std::string line;
  if (v.culprits.empty()) {
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
    culprits.push_back({{"rank", c.rank},
                        {"host", c.host},
                        {"state", to_string(c.state)},
                        {"last_operation", c.operation},
                        {"last_operation_name", c.name},
                        {"why", c.why}});
  }
  return {{"timeout_s", timeout_s},
          {"furthest_operation", {{"number", v.furthest}, {"name", v.furthest_name}}},
          {"culprits", std::move(culprits)},
          {"unmonitored_ranks", v.unmonitored},
          {"summary", hang_line(v, timeout_s)}};
}

}  // namespace ironbench::comm
