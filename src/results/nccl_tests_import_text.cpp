// The table nccl-tests and rccl-tests print: settings and device lines, the column header that
// gives the table's layout, and its rows (nccl_tests_import_parsers.hpp).
#include <fmt/format.h>

#include <map>
#include <optional>

#include "core/error.hpp"
#include "core/text_match.hpp"
#include "results/import_text.hpp"
#include "results/nccl_tests_import_parsers.hpp"

namespace ironbench::results {
namespace {

// Where each value of a row sits, from the column header.
struct table_layout {
  bool known = false;
  std::size_t middle_columns = 0;  // redop and/or root
  std::vector<bool> groups;        // per column group: true for in-place
  std::size_t per_group = 0;       // time, algbw, busbw, #wrong [, i_min, i_max, i_p99, i_cv%]
  bool timestamp = false;
};

// "[1,0]<stdout>:" (Open MPI --tag-output) in front of every line.
std::string without_mpi_tag(const std::string& line) {
  text_scanner s(line);
  if (s.literal("[") && !s.digits().empty() && s.literal(",") && !s.digits().empty() && s.literal("]<std") &&
      (s.literal("out>:") || s.literal("err>:"))) {
    return std::string(s.rest());
  }
  return line;
}

bool is_column_header(const std::vector<std::string>& tokens) {
  const auto has = [&](const char* name) { return std::find(tokens.begin(), tokens.end(), name) != tokens.end(); };
  return has("size") && has("count") && has("type") && (has("time") || has("cputime")) && has("algbw") && has("busbw");
}

// "#  nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ..."
void read_settings(const std::string& line, std::map<std::string, std::string>& settings) {
  static const std::string_view keys[] = {"nThread",    "nGpus",  "minBytes",    "maxBytes", "step:",   "warmup iters:",
                                          "agg iters:", "iters:", "validation:", "graph:",   "unalign:"};
  text_scanner s(line);
  while (!s.at_end()) {
    bool found = false;
    for (const auto key : keys) {
      const auto start = s.position();
      if (!s.literal(key) || !s.spaces()) {
        s.rewind(start);
        continue;
      }
      const auto value = s.word();
      if (value.empty()) {  // the line ends after the key
        s.rewind(start);
        continue;
      }
      settings.emplace(std::string(key.ends_with(':') ? key.substr(0, key.size() - 1) : key), std::string(value));
      found = true;
      break;
    }
    if (!found) s.rewind(s.position() + 1);
  }
}

// The text after "#" and "KEY" and a colon ("# Avg bus bandwidth    : 1.23 " -> "1.23"); nullopt
// when the comment is not KEY, or no value follows.
std::optional<std::string> comment_value(const std::string& content, std::string_view key) {
  text_scanner s(content);
  if (!s.literal("#")) return std::nullopt;
  s.skip_spaces();
  if (!s.literal(key)) return std::nullopt;
  s.skip_spaces();
  if (!s.literal(":")) return std::nullopt;
  s.skip_spaces();
  const auto value = s.word();
  if (value.empty()) return std::nullopt;
  return std::string(value);
}

// "# nccl-tests version 2.13.8 nccl-headers=..." -> "nccl-tests version 2.13.8 nccl-headers=...".
std::optional<std::string> version_comment(const std::string& content) {
  text_scanner s(content);
  if (!s.literal("#")) return std::nullopt;
  s.skip_spaces();
  const auto rest = s.remaining();
  if (!rest.starts_with("nccl-tests version ") && !rest.starts_with("rccl-tests version ")) return std::nullopt;
  return std::string(rest);
}

// "# Collective test starting: all_reduce_perf" -> "all_reduce_perf".
std::optional<std::string> starting_comment(const std::string& content) {
  text_scanner s(content);
  if (!s.literal("#")) return std::nullopt;
  s.skip_spaces();
  if (!s.literal("Collective test starting:")) return std::nullopt;
  s.skip_spaces();
  const auto program = s.word();
  if (program.empty()) return std::nullopt;
  return std::string(program);
}

// "#  Rank  0 Group  0 Pid  12345 on node-1 device  0 [0x1b] NVIDIA H100 80GB HBM3" (the
// Group field is absent in older versions).
struct rank_comment {
  std::string rank, host, device, bus_id, name;
};

std::optional<rank_comment> rank_of_comment(const std::string& content) {
  text_scanner s(content);
  rank_comment r;
  if (!s.literal("#")) return std::nullopt;
  s.skip_spaces();
  if (!s.literal("Rank") || !s.spaces()) return std::nullopt;
  r.rank = s.digits();
  if (r.rank.empty() || !s.spaces()) return std::nullopt;
  if (const auto before_group = s.position();
      !(s.literal("Group") && s.spaces() && !s.digits().empty() && s.spaces())) {
    s.rewind(before_group);
  }
  if (!s.literal("Pid") || !s.spaces() || s.digits().empty() || !s.spaces()) return std::nullopt;
  if (!s.literal("on") || !s.spaces()) return std::nullopt;
  r.host = s.word();
  if (r.host.empty() || !s.spaces() || !s.literal("device") || !s.spaces()) return std::nullopt;
  r.device = s.digits();
  if (r.device.empty() || !s.spaces() || !s.literal("[")) return std::nullopt;
  const auto bus_id = s.until(']');
  if (!bus_id) return std::nullopt;
  r.bus_id = *bus_id;
  s.literal("]");
  r.name = trim_copy(s.rest());
  return r;
}

class text_parser {
 public:
  explicit text_parser(const std::string& source) : source_(source) { current_.format = "text"; }

  std::vector<nccl_tests_report> parse(const std::string& text) {
    const auto lines = split_lines(text);
    std::string previous_comment;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto line = without_mpi_tag(lines[i]);
      const auto content = trim_copy(line);
      if (content.empty()) continue;
      if (content.front() == '#') {
        comment(content, previous_comment, i + 1);
        previous_comment = content;
        continue;
      }
      if (content.starts_with("rccl-tests: Version") || content.starts_with("nccl-tests: Version")) {
        start_run_if_measured();
        current_.version_line = content;
        continue;
      }
      if (layout_.known) row(content, i + 1);
    }
    finish();
    return reports_;
  }

 private:
  void start_run_if_measured() {
    if (current_.rows.empty()) return;
    finish();
    current_ = nccl_tests_report{};
    current_.format = "text";
    layout_ = {};
  }

  void finish() {
    if (!current_.rows.empty()) reports_.push_back(current_);
  }

  void comment(const std::string& content, const std::string& previous_comment, std::size_t line) {
    if (auto version = version_comment(content)) {
      start_run_if_measured();
      current_.version_line = std::move(*version);
    } else if (auto program = starting_comment(content)) {
      start_run_if_measured();
      current_.program = std::move(*program);
    } else if (content.find("nThread") != std::string::npos && content.find("nGpus") != std::string::npos) {
      start_run_if_measured();
      read_settings(content, current_.settings);
    } else if (content.find("Using devices") != std::string::npos) {
      start_run_if_measured();
    } else if (auto rank = rank_of_comment(content)) {
      start_run_if_measured();
      const auto rank_number = parse_integer(rank->rank), device = parse_integer(rank->device);
      if (!rank_number || !device || *rank_number >= max_nccl_tests_ranks || *device >= max_nccl_tests_ranks) {
        throw usage_error(fmt::format("{}: line {}: implausible rank line", source_, line));
      }
      current_.devices.push_back({static_cast<int>(*rank_number), std::move(rank->host), static_cast<int>(*device),
                                  std::move(rank->bus_id), std::move(rank->name)});
    } else if (const auto average = comment_value(content, "Avg bus bandwidth")) {
      const auto value = parse_number(*average);
      if (!value || *value < 0) {
        throw usage_error(fmt::format("{}: line {}: the average bus bandwidth '{}' is not a number", source_, line,
                                      excerpt(*average)));
      }
      current_.average_busbw_gbs = value;
    } else if (const auto out_of_bounds = comment_value(content, "Out of bounds values")) {
      current_.out_of_bounds = parse_integer(*out_of_bounds);
    } else {
      auto tokens = split_whitespace(content.substr(1));
      if (is_column_header(tokens)) header(tokens, previous_comment);
    }
  }

  void header(const std::vector<std::string>& tokens, const std::string& previous_comment) {
    if (!current_.rows.empty()) {  // a second table after the first, without its own preamble
      auto next = current_;
      next.rows.clear();
      next.average_busbw_gbs.reset();
      next.out_of_bounds.reset();
      finish();
      current_ = next;
    }
    layout_ = {};
    current_.prefix_columns.clear();
    std::size_t i = 0;
    for (; i < tokens.size() && tokens[i] != "time" && tokens[i] != "cputime"; ++i)
      current_.prefix_columns.push_back(tokens[i]);
    const auto& p = current_.prefix_columns;
    if (p.size() < 3 || p[0] != "size" || p[1] != "count" || p[2] != "type") {
      throw usage_error(fmt::format("{}: unexpected nccl-tests column header (columns before the time: {})", source_,
                                    fmt::join(p, " ")));
    }
    for (std::size_t k = 3; k < p.size(); ++k) {
      if (p[k] != "redop" && p[k] != "root") {
        throw usage_error(fmt::format("{}: unexpected nccl-tests column '{}' in the header", source_, excerpt(p[k])));
      }
    }
    layout_.middle_columns = p.size() - 3;
    current_.cpu_time = tokens[i] == "cputime";
    std::vector<std::vector<std::string>> groups;
    for (; i < tokens.size(); ++i) {
      if (tokens[i] == "timestamp") {
        layout_.timestamp = true;
        continue;
      }
      if (tokens[i] == "time" || tokens[i] == "cputime") groups.emplace_back();
      groups.back().push_back(tokens[i]);
    }
    if (groups.empty() || groups.size() > 2 || (groups.size() == 2 && groups[0].size() != groups[1].size()) ||
        groups[0].size() < 4 || groups[0][1] != "algbw" || groups[0][2] != "busbw") {
      throw usage_error(fmt::format("{}: unexpected nccl-tests column header", source_));
    }
    current_.wrong_is_max_error = groups[0][3] == "error";
    layout_.per_group = groups[0].size();
    if (groups.size() == 2) {
      layout_.groups = {false, true};
    } else {
      // rccl-tests without out-of-place runs (-O 0) titles its only group "in-place".
      const bool in_place_only = previous_comment.find("in-place") != std::string::npos &&
                                 previous_comment.find("out-of-place") == std::string::npos;
      layout_.groups = {in_place_only};
    }
    layout_.known = true;
  }

  [[noreturn]] void bad_row(std::size_t line, const std::string& what) const {
    throw usage_error(fmt::format("{}: line {}: {}", source_, line, what));
  }

  double number(const std::string& token, const char* column, std::size_t line) const {
    const auto value = parse_number(token);
    if (!value || *value < 0)
      bad_row(line, fmt::format("'{}' in the {} column is not a number", excerpt(token), column));
    return *value;
  }

  void row(const std::string& content, std::size_t line) {
    auto tokens = split_whitespace(content);
    const auto digits_only = [](const std::string& t) { return std::all_of(t.begin(), t.end(), is_digit); };
    if (tokens.size() < 2 || !digits_only(tokens[0]) || !digits_only(tokens[1])) return;  // not a row
    for (const auto& [token, column] : {std::pair{&tokens[0], "size"}, std::pair{&tokens[1], "count"}}) {
      if (!parse_unsigned(*token)) bad_row(line, fmt::format("{} '{}' is beyond 64 bits", column, excerpt(*token)));
    }
    const std::size_t tail = layout_.groups.size() * layout_.per_group;
    if (layout_.timestamp && tokens.size() >= 5 + tail) {
      if (has_shape(tokens[tokens.size() - 2], "9999-99-99") && has_shape(tokens.back(), "99:99:99")) {
        tokens.resize(tokens.size() - 2);
      }
    }
    if (tokens.size() < 3 + tail || parse_number(tokens[2])) {
      bad_row(line, fmt::format("truncated nccl-tests row ({} fields, the header has {})", tokens.size(),
                                3 + layout_.middle_columns + tail));
    }
    const std::size_t middle = tokens.size() - 3 - tail;
    if (middle > layout_.middle_columns) {
      bad_row(line, fmt::format("nccl-tests row with {} fields, the header has {}", tokens.size(),
                                3 + layout_.middle_columns + tail));
    }
    nccl_tests_row r;
    r.line = line;
    r.bytes = *parse_unsigned(tokens[0]);
    r.count = *parse_unsigned(tokens[1]);
    if (r.bytes > (std::uint64_t{1} << 62)) bad_row(line, fmt::format("implausible size {}", r.bytes));
    r.type = tokens[2];
    const bool has_root = std::find(current_.prefix_columns.begin(), current_.prefix_columns.end(), "root") !=
                          current_.prefix_columns.end();
    for (std::size_t k = 0; k < middle; ++k) {
      const auto& token = tokens[3 + k];
      // In order when every column is there; by kind when the table left one blank (the
      // redop of alltoall in nccl-tests before 2.13).
      const auto& column = middle == layout_.middle_columns ? current_.prefix_columns[3 + k]
                           : parse_integer(token)           ? std::string("root")
                                                            : std::string("redop");
      if (column == "root") {
        const auto root = parse_integer(token);
        if (!root || r.root) bad_row(line, fmt::format("'{}' in the root column is not a rank", excerpt(token)));
        r.root = root;
      } else {
        if (!r.redop.empty()) bad_row(line, fmt::format("'{}' in the redop column is not an operator", excerpt(token)));
        r.redop = token;
      }
    }
    if (has_root && !r.root) bad_row(line, "no root in a table with a root column");
    for (std::size_t g = 0; g < layout_.groups.size(); ++g) {
      auto& p = layout_.groups[g] ? r.in_place : r.out_of_place;
      const std::size_t at = 3 + middle + g * layout_.per_group;
      p.present = true;
      p.time_us = number(tokens[at], current_.cpu_time ? "cputime" : "time", line);
      p.algbw_gbs = number(tokens[at + 1], "algbw", line);
      p.busbw_gbs = number(tokens[at + 2], "busbw", line);
      auto wrong = tokens[at + 3];
      if (wrong != "N/A") {
        if (wrong.ends_with('*')) wrong.pop_back();  // rccl-tests marks errors over its threshold
        p.wrong = number(wrong, current_.wrong_is_max_error ? "error" : "#wrong", line);
      }
      for (std::size_t k = 4; k < layout_.per_group; ++k) (void)number(tokens[at + k], "per-iteration", line);
    }
    current_.rows.push_back(std::move(r));
  }

  std::string source_;
  std::vector<nccl_tests_report> reports_;
  nccl_tests_report current_;
  table_layout layout_;
};

}  // namespace

std::vector<nccl_tests_report> parse_nccl_tests_text(const std::string& text, const std::string& source) {
  return text_parser(source).parse(text);
}

}  // namespace ironbench::results
