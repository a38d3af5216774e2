#include "results/nccl_tests_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "core/statistics.hpp"
#include "core/text_match.hpp"
#include "results/import_consistency.hpp"
#include "results/import_text.hpp"
#include "schema/collective_case.hpp"
#include "schema/collective_names.hpp"
#include "schema/straggler_analysis.hpp"

namespace ironbench::results {
namespace {

// The most ranks, and the highest device index, an nccl-tests report is believed to describe.
constexpr std::int64_t max_nccl_tests_ranks = std::int64_t{1} << 24;

// nccl-tests' programs and the collective each measures, longest names first so that a
// search in a file name prefers "all_reduce" to "reduce" and "reduce_scatter" to "scatter".
const std::vector<std::string>& known_collectives() {
  static const std::vector<std::string> names = {"reduce_scatter", "all_reduce", "all_gather", "alltoallv",
                                                 "alltoall",       "broadcast",  "hypercube",  "sendrecv",
                                                 "scatter",        "gather",     "reduce"};
  return names;
}

bool is_known_collective(const std::string& name) {
  const auto& names = known_collectives();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool reduces(const std::string& collective) {
  const auto c = schema::collective_from_string(collective);
  return c && schema::reduces(*c);
}

bool takes_root(const std::string& collective) {
  return collective == "broadcast" || collective == "reduce" || collective == "gather" || collective == "scatter";
}

bool is_reduce_op(const std::string& redop) {
  return schema::reduce_op_from_string(redop).has_value() || redop == "mulsum";
}

// "all_reduce_perf", "./build/all_reduce_perf_mpi" -> "all_reduce"; "" when not a program of
// nccl-tests.
std::string collective_of_program(const std::string& program) {
  std::string name = file_name_of(trim_copy(program));
  for (const std::string suffix : {".exe", "_mpi"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  if (name.ends_with("_perf")) name.resize(name.size() - 5);
  return is_known_collective(name) ? name : std::string();
}

// The first "COLLECTIVE_perf" in the file name ("run3-all_reduce_perf.txt" -> "all_reduce").
std::string collective_of_file_name(const std::string& source) {
  const auto name = file_name_of(source);
  for (std::size_t at = 0; at < name.size(); ++at) {
    for (const auto& collective : known_collectives()) {
      if (std::string_view(name).substr(at).starts_with(collective + "_perf")) return collective;
    }
  }
  return {};
}

// ---- text ------------------------------------------------------------------------------

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

// ---- JSON (nccl-tests -J) --------------------------------------------------------------

double json_number(const json& value, const std::string& what, const std::string& source) {
  if (!value.is_number()) {
    throw usage_error(
        fmt::format("{}: {} is {} in the nccl-tests JSON, not a number", source, what, core::json_text(value)));
  }
  const double v = value.get<double>();
  if (v < 0) throw usage_error(fmt::format("{}: {} is negative ({}) in the nccl-tests JSON", source, what, v));
  return v;
}

nccl_tests_placement json_placement(const json& p, const std::string& where, const std::string& source) {
  nccl_tests_placement out;
  if (p.is_null()) return out;
  if (!p.is_object()) throw usage_error(fmt::format("{}: {} is not an object in the nccl-tests JSON", source, where));
  out.present = true;
  const auto time_key = p.contains("cpu_time") ? "cpu_time" : "time";
  for (const char* key : {time_key, "alg_bw", "bus_bw"}) {
    if (!p.contains(key))
      throw usage_error(fmt::format("{}: {} has no \"{}\" in the nccl-tests JSON", source, where, key));
  }
  out.time_us = json_number(p.at(time_key), where + "." + time_key, source);
  out.algbw_gbs = json_number(p.at("alg_bw"), where + ".alg_bw", source);
  out.busbw_gbs = json_number(p.at("bus_bw"), where + ".bus_bw", source);
  if (p.contains("nwrong") && !p.at("nwrong").is_null())
    out.wrong = json_number(p.at("nwrong"), where + ".nwrong", source);
  return out;
}

// per_process_max_times_us: one list per process, each as long as times_us (nccl-tests 2.19+
// with -I 1 and several processes), and skipped_iterations.
void read_process_times(const json& per_iter, const std::string& where, const std::string& source,
                        nccl_tests_placement& placement) {
  if (per_iter.contains("skipped_iterations") && per_iter.at("skipped_iterations").is_number_unsigned()) {
    placement.skipped_iterations = per_iter.at("skipped_iterations").get<std::size_t>();
  }
  if (!per_iter.contains("per_process_max_times_us")) return;
  const auto& rows = per_iter.at("per_process_max_times_us");
  const auto key = where + ".per_process_max_times_us";
  if (!rows.is_array()) throw usage_error(fmt::format("{}: {} is not a list in the nccl-tests JSON", source, key));
  for (std::size_t p = 0; p < rows.size(); ++p) {
    if (!rows[p].is_array() || rows[p].size() != placement.iteration_times_us.size()) {
      throw usage_error(fmt::format("{}: {}[{}] is not a list of {} iteration times (as times_us)", source, key, p,
                                    placement.iteration_times_us.size()));
    }
    std::vector<double> times;
    for (const auto& t : rows[p]) {
      if (!t.is_number() || !(t.get<double>() > 0)) {
        throw usage_error(fmt::format("{}: {}[{}] holds {}, not a time", source, key, p, core::json_text(t)));
      }
      times.push_back(t.get<double>());
    }
    placement.process_times_us.push_back(std::move(times));
  }
}

std::string json_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : core::json_text(value);
}

// A device's "rank" or "device": 0 when absent, else an integer from 0 to below max_nccl_tests_ranks
// (a fraction, a huge number or a negative one is an error naming the key).
int device_index(const json& device, const char* key, std::size_t position, const std::string& source) {
  if (!device.contains(key)) return 0;
  const auto& value = device.at(key);
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
      value.get<std::int64_t>() >= max_nccl_tests_ranks) {
    throw usage_error(fmt::format("{}: config.devices[{}].{} is {} in the nccl-tests JSON, not an integer from 0 to {}",
                                  source, position, key, core::json_text(value), max_nccl_tests_ranks - 1));
  }
  return static_cast<int>(value.get<std::int64_t>());
}

nccl_tests_report parse_json_document(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("results") || !doc.at("results").is_array() ||
      !(doc.contains("config") || doc.contains("nccl_version"))) {
    throw usage_error(
        fmt::format("{}: JSON, but not an nccl-tests report (no \"results\" list with \"config\")", source));
  }
  nccl_tests_report r;
  r.format = "json";
  r.prefix_columns = {"size", "count", "type", "redop", "root"};
  if (doc.contains("args") && doc.at("args").is_array() && !doc.at("args").empty())
    r.program = json_text(doc.at("args")[0]);
  if (doc.contains("nccl_version")) r.version_line = "nccl " + json_text(doc.at("nccl_version"));
  if (doc.contains("config") && doc.at("config").is_object()) {
    for (const auto& [key, value] : doc.at("config").items()) {
      if (key != "devices") r.settings[key] = json_text(value);
    }
    const auto& config = doc.at("config");
    if (config.contains("devices") && config.at("devices").is_array()) {
      std::set<std::string> processes;
      const auto& devices = config.at("devices");
      for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto& d = devices[i];
        if (!d.is_object()) continue;
        processes.insert(d.value("hostname", std::string()) + ":" +
                         (d.contains("pid") ? core::json_text(d.at("pid")) : "?"));
        r.devices.push_back({device_index(d, "rank", i, source), d.value("hostname", std::string()),
                             device_index(d, "device", i, source), d.value("device_hex", std::string()),
                             d.value("device_info", std::string())});
      }
      r.processes = static_cast<int>(processes.size());
    }
  }
  const auto& results = doc.at("results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& e = results[i];
    const auto where = fmt::format("results[{}]", i);
    if (!e.is_object() || !e.contains("size") || !e.contains("count") || !e.contains("type")) {
      throw usage_error(fmt::format("{}: {} is not an nccl-tests result (size, count, type)", source, where));
    }
    nccl_tests_row row;
    row.line = i + 1;
    if (!e.at("size").is_number_unsigned() || !e.at("count").is_number_unsigned()) {
      throw usage_error(fmt::format("{}: {} has a size or count that is not a whole number", source, where));
    }
    row.bytes = e.at("size").get<std::uint64_t>();
    row.count = e.at("count").get<std::uint64_t>();
    if (row.bytes > (std::uint64_t{1} << 62)) {
      throw usage_error(fmt::format("{}: {} has an implausible size {}", source, where, row.bytes));
    }
    row.type = json_text(e.at("type"));
    row.redop = e.contains("redop") ? trim_copy(json_text(e.at("redop"))) : std::string();
    if (e.contains("root")) {
      const auto root = parse_integer(trim_copy(json_text(e.at("root"))));
      if (!root)
        throw usage_error(fmt::format("{}: {}.root is {}, not a rank", source, where, core::json_text(e.at("root"))));
      row.root = root;
    }
    row.out_of_place = json_placement(e.value("out_of_place", json()), where + ".out_of_place", source);
    row.in_place = json_placement(e.value("in_place", json()), where + ".in_place", source);
    for (const auto& [key, placement] :
         {std::pair{"out_of_place_per_iter", &row.out_of_place}, std::pair{"in_place_per_iter", &row.in_place}}) {
      if (!e.contains(key) || !e.at(key).is_object() || !e.at(key).contains("times_us")) continue;
      for (const auto& t : e.at(key).at("times_us")) {
        if (!t.is_number() || !(t.get<double>() > 0)) {
          throw usage_error(
              fmt::format("{}: {}.{}.times_us holds {}, not a time", source, where, key, core::json_text(t)));
        }
        placement->iteration_times_us.push_back(t.get<double>());
      }
      read_process_times(e.at(key), fmt::format("{}.{}", where, key), source, *placement);
    }
    if (!row.out_of_place.present && !row.in_place.present) {
      throw usage_error(fmt::format("{}: {} has neither out_of_place nor in_place timings", source, where));
    }
    if ((row.out_of_place.present && e.at("out_of_place").contains("cpu_time")) ||
        (row.in_place.present && e.at("in_place").contains("cpu_time"))) {
      r.cpu_time = true;
    }
    r.rows.push_back(std::move(row));
  }
  if (r.rows.empty()) throw usage_error(fmt::format("{}: nccl-tests JSON without result rows", source));
  // nccl-tests before February 2026 spelled these keys "average_bus_bandwidith" / "bandwidith".
  for (const auto& [key, inner] :
       {std::pair{"average_bus_bandwidth", "bandwidth"}, std::pair{"average_bus_bandwidith", "bandwidith"}}) {
    if (doc.contains(key) && doc.at(key).is_object() && doc.at(key).contains(inner) &&
        doc.at(key).at(inner).is_number()) {
      r.average_busbw_gbs = doc.at(key).at(inner).get<double>();
    }
  }
  if (doc.contains("out_of_bounds") && doc.at("out_of_bounds").is_object()) {
    const auto& o = doc.at("out_of_bounds");
    if (o.contains("count") && o.at("count").is_number_integer()) r.out_of_bounds = o.at("count").get<std::int64_t>();
  }
  return r;
}

nccl_tests_report parse_json(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  try {
    return parse_json_document(doc, source);
  } catch (const json::exception& e) {  // a value of an unexpected type
    throw usage_error(fmt::format("{}: malformed nccl-tests JSON ({})", source, e.what()));
  }
}

int ranks_of(const nccl_tests_report& report, const std::string& source, const nccl_tests_options& options) {
  int ranks = 0;
  for (const auto& d : report.devices) ranks = std::max(ranks, d.rank + 1);
  if (report.processes > 0) {
    // nccl-tests' JSON lists one device per process: a process drives ngpus GPUs per thread.
    auto setting = [&](const char* key) {
      const auto it = report.settings.find(key);
      const auto value = it == report.settings.end() ? std::nullopt : parse_integer(it->second);
      return value && *value > 0 && *value < (1 << 16) ? static_cast<int>(*value) : 1;
    };
    const auto threads = std::int64_t{report.processes} * setting("ngpus") * setting("nthreads");
    if (threads >= max_nccl_tests_ranks) {
      throw usage_error(fmt::format("{}: {} processes of {} GPUs on each of {} threads are more than {} ranks", source,
                                    report.processes, setting("ngpus"), setting("nthreads"), max_nccl_tests_ranks - 1));
    }
    ranks = std::max(ranks, static_cast<int>(threads));
  }
  if (ranks > 0 && options.ranks > 0 && options.ranks != ranks) {
    throw usage_error(fmt::format("{}: --ranks {} but the output lists {} ranks", source, options.ranks, ranks));
  }
  return ranks > 0 ? ranks : options.ranks;
}

std::string device_summary(const std::vector<nccl_tests_device>& devices) {
  std::map<std::string, int> names;
  std::set<std::string> hosts;
  for (const auto& d : devices) {
    ++names[d.name];
    hosts.insert(d.hostname);
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : names) parts.push_back(fmt::format("{} x {}", n, name));
  return fmt::format("{} on {} host(s)", fmt::join(parts, ", "), hosts.size());
}

// busbw against algbw x the collective's bus factor (any of those its versions use), or, with
// the ranks unknown, against the most that factor reaches.
void check_bus_bandwidth(consistency_check& check, const std::string& collective, int ranks, double algbw,
                         double busbw) {
  if (ranks <= 0) {
    const double most = nccl_tests_max_bus_factor(collective);
    check.at_most("busbw", busbw, algbw * most,
                  fmt::format("algbw {:g} GB/s x {:g} (the largest bus factor of {}, at any rank count)", algbw, most,
                              collective),
                  "GB/s", nccl_tests_busbw_agreement);
    return;
  }
  const auto factors = nccl_tests_bus_factors(collective, ranks);
  if (factors.empty()) return;
  for (const double f : factors) {
    consistency_check one;
    one.agree("busbw", busbw, algbw * f, "", "GB/s", nccl_tests_busbw_agreement);
    if (one.consistent()) return;
  }
  const double f = factors.front();
  check.agree("busbw", busbw, algbw * f,
              fmt::format("algbw {:g} GB/s x {:.6g} ({}'s bus factor for {} ranks{})", algbw, f, collective, ranks,
                          factors.size() > 1 ? fmt::format(", or {:.6g}", factors.back()) : std::string()),
              "GB/s", nccl_tests_busbw_agreement);
}

}  // namespace

std::vector<double> nccl_tests_bus_factors(const std::string& collective, int ranks) {
  if (ranks <= 0) return {};
  const double n = ranks;
  if (collective == "all_reduce") return {2 * (n - 1) / n};
  if (collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall") return {(n - 1) / n};
  if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv") return {1.0};
  if (collective == "gather" || collective == "scatter" || collective == "alltoallv" || collective == "hypercube") {
    return {(n - 1) / n, 1.0};
  }
  return {};
}

double nccl_tests_max_bus_factor(const std::string& collective) { return collective == "all_reduce" ? 2.0 : 1.0; }

std::vector<nccl_tests_report> parse_nccl_tests(const std::string& text, const std::string& source) {
  const auto content = trim_copy(text);
  if (content.empty()) throw usage_error(fmt::format("{}: empty file, no nccl-tests output", source));
  if (content.front() == '{') return {parse_json(content, source)};
  auto reports = text_parser(source).parse(text);
  if (reports.empty()) {
    throw usage_error(
        fmt::format("{}: no nccl-tests table (a '#  size  count  type ... time  algbw  busbw' header "
                    "followed by rows)",
                    source));
  }
  return reports;
}

std::string ironbench_dtype(const std::string& type) { return schema::dtype_of_nccl_tests_type(type); }

std::string nccl_tests_collective(const nccl_tests_report& report, const std::string& source,
                                  const nccl_tests_options& options) {
  std::string collective;
  std::string from;
  if (!report.program.empty()) {
    collective = collective_of_program(report.program);
    if (collective.empty()) {
      throw usage_error(fmt::format("{}: '{}' is not an nccl-tests collective test", source, report.program));
    }
    from = fmt::format("the output (program {})", report.program);
    if (!options.collective.empty() && collective_of_program(options.collective) != collective) {
      throw usage_error(
          fmt::format("{}: the output is {} but --collective says {}", source, report.program, options.collective));
    }
  } else if (!options.collective.empty()) {
    collective = collective_of_program(options.collective);
    if (collective.empty()) {
      throw usage_error(fmt::format("unknown --collective '{}' (known: {})", options.collective,
                                    fmt::join(known_collectives(), ", ")));
    }
    from = "--collective";
  } else if (const auto named = collective_of_file_name(source); !named.empty()) {
    collective = named;
    from = "the file name";
  }
  // The root and redop columns tell rooted collectives apart and check the rest.
  bool rooted = false, unrooted = false, with_op = false, without_op = false;
  for (const auto& r : report.rows) {
    if (r.root) (*r.root >= 0 ? rooted : unrooted) = true;
    if (is_reduce_op(r.redop)) with_op = true;
    if (r.redop == "none") without_op = true;
  }
  // A root and an operator is reduce; a root alone is broadcast, gather or scatter.
  if (collective.empty() && rooted && !unrooted && with_op) collective = "reduce";
  if (collective.empty()) {
    throw usage_error(
        fmt::format("{}: the output does not say which collective it measured; name the file after the "
                    "test (all_reduce_perf.txt) or pass --collective NAME",
                    source));
  }
  const bool root_fits = takes_root(collective) ? !unrooted : !rooted;
  const bool op_fits = reduces(collective) ? !without_op : (collective == "sendrecv" || !with_op);
  if (!root_fits || !op_fits) {
    throw usage_error(fmt::format("{}: the root/redop columns do not fit {} (from {}); pass --collective NAME", source,
                                  collective, from.empty() ? "the columns" : from));
  }
  return collective;
}

std::vector<core::case_result> nccl_tests_cases(const nccl_tests_report& report, const std::string& source,
                                                const nccl_tests_options& options) {
  const auto collective = nccl_tests_collective(report, source, options);
  const int ranks = ranks_of(report, source, options);
  const bool checked = !report.settings.count("validation") || report.settings.at("validation") != "0";
  std::vector<core::case_result> cases;
  for (const auto& row : report.rows) {
    for (const bool in_place : {false, true}) {
      const auto& p = in_place ? row.in_place : row.out_of_place;
      if (!p.present) continue;
      schema::collective_case_fields f;
      f.collective = collective;
      f.dtype = ironbench_dtype(row.type);
      f.op = reduces(collective) ? (row.redop.empty() ? std::string("unknown") : row.redop) : std::string("none");
      f.root = row.root.value_or(-1);
      f.size = row.bytes;
      f.in_place = in_place;
      f.ranks = ranks;
      f.count = row.count;
      if (!p.iteration_times_us.empty()) {
        core::measurement m;
        for (double t : p.iteration_times_us) m.samples_s.push_back(t * 1e-6);
        m.total_iterations = m.samples_s.size();
        m.time_s = core::summarize(m.samples_s);
        f.timing = m;
      }
      f.time_us = p.time_us;
      f.time_description =
          report.cpu_time ? "CPU time per iteration (nccl-tests -C)" : "time per iteration (nccl-tests)";
      f.algbw_gbs = p.algbw_gbs;
      f.busbw_gbs = p.busbw_gbs;
      const bool counted = p.wrong.has_value() && !report.wrong_is_max_error;
      f.wrong = counted ? *p.wrong : -1;
      auto c = schema::collective_case(f);
      if (f.timing) c.notes["timing"] = "every iteration's time from nccl-tests' JSON (-I 1)";
      if (report.wrong_is_max_error && p.wrong) {
        c.metrics.push_back(
            {"max_error", *p.wrong, "", "largest deviation from the expected values (nccl-tests < 2.13)"});
      }
      // algbw is size / time (GB = 1e9 B); the table prints both to 2 decimals, its time to 1 or 2.
      consistency_check check;
      if (p.time_us > 0) {
        check.agree("algbw", p.algbw_gbs, static_cast<double>(row.bytes) / p.time_us / 1e3,
                    fmt::format("{} B / {:g} us", row.bytes, p.time_us), "GB/s", nccl_tests_bandwidth_agreement);
      }
      check_bus_bandwidth(check, collective, ranks, p.algbw_gbs, p.busbw_gbs);
      check.apply_to(c);
      c.notes["source"] = source;
      c.notes["imported_from"] = fmt::format("nccl-tests {} output{}", report.format,
                                             report.program.empty() ? "" : " of " + file_name_of(report.program));
      c.notes["nccl_tests_type"] = row.type;
      if (!report.version_line.empty()) c.notes["version"] = report.version_line;
      c.notes["stragglers"] =
          p.process_times_us.size() >= 2
              ? fmt::format("per-process times of {} processes: settings.stragglers", p.process_times_us.size())
              : std::string(nccl_tests_no_process_times);
      if (!report.devices.empty()) c.notes["devices"] = device_summary(report.devices);
      if (ranks == 0) c.notes["ranks"] = "unknown: the output lists no ranks (pass --ranks N)";
      if (report.average_busbw_gbs) c.notes["avg_bus_bandwidth"] = fmt::format("{:g} GB/s", *report.average_busbw_gbs);
      if (report.wrong_is_max_error) {
        c.notes["verification"] = "nccl-tests before 2.13: the largest deviation (max_error), not a count";
      } else if (counted) {
        c.notes["verification"] = "nccl-tests' check of the output (#wrong)";
      } else {
        c.notes["verification"] = checked ? "not reported (N/A)" : "not checked (nccl-tests -c 0)";
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::optional<json> nccl_tests_stragglers(const nccl_tests_report& report) {
  std::vector<schema::timed_step> steps;
  std::size_t processes = 0;
  for (const auto& row : report.rows) {
    for (const bool in_place : {false, true}) {
      const auto& p = in_place ? row.in_place : row.out_of_place;
      if (p.process_times_us.size() < 2) continue;
      processes = std::max(processes, p.process_times_us.size());
      const auto iterations = p.process_times_us.front().size();
      for (std::size_t i = p.skipped_iterations; i < iterations; ++i) {
        schema::timed_step step;
        step.label = fmt::format("{} B {} iteration {}", row.bytes, in_place ? "in place" : "out of place", i + 1);
        for (const auto& times : p.process_times_us) step.rank_seconds.push_back(times[i] * 1e-6);
        steps.push_back(std::move(step));
      }
    }
  }
  if (steps.empty()) return std::nullopt;
  // config.devices lists one entry per process, in process order.
  std::vector<std::string> hosts;
  if (report.devices.size() == processes) {
    for (const auto& d : report.devices) hosts.push_back(d.hostname);
  }
  return schema::straggler_json(schema::find_stragglers(steps, hosts), nccl_tests_straggler_method);
}

}  // namespace ironbench::results
