#include "results/perftest_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/text_match.hpp"
#include "results/import_consistency.hpp"
#include "results/import_text.hpp"

namespace ironbench::results {
namespace {

// Above these a value is a damaged file, not a measurement: 1 Pb/s is over a thousand times
// the fastest NIC port of 2026 (800 Gb/s), 10^12 messages per second far beyond any HCA, and
// perftest's sizes stop at a few GiB.
constexpr double perftest_max_gbits = 1e6;
constexpr double perftest_max_mpps = 1e6;
constexpr std::uint64_t perftest_max_bytes = std::uint64_t{1} << 62;

// " Dual-port       : OFF\t\tDevice         : mlx5_0" holds two "key : value" pairs, separated
// by tabs (or, where a terminal copy turned them into spaces, by a run of three or more spaces
// before the next key: a word with a colon after it).
std::vector<std::string_view> parameter_segments(std::string_view line) {
  std::vector<std::string_view> segments;
  const auto last_colon = line.rfind(':');
  std::size_t start = 0, at = 0;
  while (at < line.size()) {
    std::size_t end = at;
    if (line[at] == '\t') {
      while (end < line.size() && line[end] == '\t') ++end;
    } else if (is_space(line[at])) {
      while (end < line.size() && is_space(line[end])) ++end;
      const bool before_key = end - at >= 3 && end < line.size() && is_letter(line[end]) &&
                              last_colon != std::string_view::npos && last_colon > end;
      if (!before_key) {  // no separator here: on to the run's first tab, if it has one
        while (at < end && line[at] != '\t') ++at;
        continue;
      }
    } else {
      ++at;
      continue;
    }
    segments.push_back(line.substr(start, at - start));
    start = at = end;
  }
  segments.push_back(line.substr(start));
  return segments;
}

void read_parameters(const std::string& line, std::map<std::string, std::string>& parameters) {
  for (const auto segment : parameter_segments(line)) {
    const auto colon = segment.find(':');
    if (colon == std::string::npos) continue;
    const auto key = trim_copy(segment.substr(0, colon));
    const auto value = trim_copy(segment.substr(colon + 1));
    if (!key.empty() && !value.empty()) parameters.emplace(key, value);
  }
}

std::string tool_of(const std::string& test) {
  if (test == "RDMA_Write") return "ib_write_bw";
  if (test == "RDMA_Read") return "ib_read_bw";
  if (test == "Send") return "ib_send_bw";
  return "perftest";
}

// " RDMA_Write Bidirectional BW Test" -> {"RDMA_Write", true}; also "Send Post List BW Test"
// and "Atomic_FETCH_AND_ADD BW Test" (perftest's title lines).
std::optional<std::pair<std::string, bool>> title_of(std::string_view line) {
  const auto words = split_whitespace(line);
  if (words.size() < 3 || words[words.size() - 2] != "BW" || words.back() != "Test") return std::nullopt;
  const auto& test = words[0];
  const bool atomic = test == "Atomic" || (test.starts_with("Atomic_") && test.size() > 7 &&
                                           std::all_of(test.begin() + 7, test.end(),
                                                       [](char c) { return is_letter(c) || is_digit(c) || c == '_'; }));
  if (test != "RDMA_Write" && test != "RDMA_Read" && test != "Send" && !atomic) return std::nullopt;
  std::size_t at = 1;
  const bool bidirectional = words[at] == "Bidirectional";
  if (bidirectional) ++at;
  if (words[at] == "Post" && at + 1 < words.size() && words[at + 1] == "List") at += 2;
  if (at != words.size() - 2) return std::nullopt;
  return std::pair{test, bidirectional};
}

// The unit of " #bytes  #iterations  BW peak[Gb/sec]  BW average[Gb/sec]  MsgRate[Mpps]"
// ("Gb/sec"), from the average's column; nullopt when the line is not that header.
std::optional<std::string> header_unit(std::string_view line) {
  const auto words = split_whitespace(line);
  const auto unit_in = [](const std::string& word, std::string_view name) -> std::optional<std::string> {
    if (!word.starts_with(name) || !word.ends_with(']') || word.size() <= name.size() + 1) return std::nullopt;
    const auto unit = word.substr(name.size(), word.size() - name.size() - 1);
    if (!std::all_of(unit.begin(), unit.end(), [](char c) { return is_letter(c) || c == '/'; })) return std::nullopt;
    return unit;
  };
  for (std::size_t i = 0; i + 7 <= words.size(); ++i) {
    if (words[i] != "#bytes" || words[i + 1] != "#iterations" || words[i + 2] != "BW" || words[i + 4] != "BW" ||
        words[i + 6] != "MsgRate[Mpps]") {
      continue;
    }
    if (unit_in(words[i + 3], "peak[") && unit_in(words[i + 5], "average[")) return unit_in(words[i + 5], "average[");
  }
  return std::nullopt;
}

// "------...": the line perftest prints after the last row of its table.
bool is_rule(std::string_view line) {
  const auto content = trim(line);
  return content.size() >= 3 && content.find_first_not_of('-') == std::string_view::npos;
}

// Whether a line inside the table is meant as a row: it starts with a number (lines of text
// mixed in from standard error do not).
bool looks_like_row(std::string_view line) {
  const auto content = trim(line);
  if (content.empty()) return false;
  const char first = content.front();
  const char second = content.size() > 1 ? content[1] : ' ';
  return is_digit(first) || ((first == '-' || first == '+' || first == '.') && (is_digit(second) || second == '.'));
}

// The table being read: where it comes from and its unit, to check and name each row.
struct perftest_table {
  std::string source;
  std::string unit;

  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw usage_error(fmt::format("{}: line {}: {}", source, line, what));
  }

  std::uint64_t whole(const std::string& field, const char* column, std::size_t line) const {
    const auto value = parse_unsigned(field);
    if (value) return *value;
    const bool digits = std::all_of(field.begin(), field.end(), is_digit);
    fail(line, fmt::format("{} '{}' is {}", column, excerpt(field), digits ? "beyond 64 bits" : "not a whole number"));
  }

  double real(const std::string& field, const char* column, std::size_t line) const {
    const auto value = parse_number(field);
    if (!value || *value < 0) {
      fail(line, fmt::format("{} '{}' is not a number (finite, not negative)", column, excerpt(field)));
    }
    return *value;
  }

  double rate(const std::string& field, const char* column, std::size_t line) const {
    const double value = real(field, column, line);
    if (to_gbits(value, unit) > perftest_max_gbits)
      fail(line, fmt::format("implausible {} {} {}", column, excerpt(field), unit));
    return value;
  }

  // " 65536      5000             52.51              52.50  \t\t   0.100143"
  perftest_row row(std::string_view text, std::size_t line) const {
    const auto fields = split_whitespace(text);
    if (fields.size() != 5 && fields.size() != 6) {
      fail(line, fmt::format("perftest row with {} fields, the header has 5 (#bytes #iterations BW peak BW "
                             "average MsgRate); a file cut short?",
                             fields.size()));
    }
    perftest_row r;
    r.bytes = whole(fields[0], "#bytes", line);
    if (r.bytes > perftest_max_bytes) fail(line, fmt::format("implausible #bytes {}", r.bytes));
    r.iterations = whole(fields[1], "#iterations", line);
    r.peak = rate(fields[2], "BW peak", line);
    r.average = rate(fields[3], "BW average", line);
    r.message_rate_mpps = real(fields[4], "MsgRate", line);
    if (r.message_rate_mpps > perftest_max_mpps)
      fail(line, fmt::format("implausible MsgRate {} Mpps", excerpt(fields[4])));
    if (fields.size() == 6) (void)real(fields[5], "sixth column", line);
    return r;
  }
};

}  // namespace

double to_gbits(double value, const std::string& unit) {
  if (unit == "Gb/sec") return value;
  return value * 1048576.0 * 8.0 / 1e9;  // MB/sec and MiB/sec: perftest divides by 2^20
}

perftest_report parse_perftest(const std::string& text, const std::string& source) {
  perftest_report report;
  bool in_rows = false;
  bool waiting_banner = false;
  std::size_t table_line = 0;  // the column header of the table being read
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& line = lines[i];
    if (in_rows) {
      if (is_rule(line)) {
        in_rows = false;
      } else if (looks_like_row(line)) {
        report.rows.push_back(perftest_table{source, report.unit}.row(line, i + 1));
      }
      continue;  // anything else is standard error mixed in
    }
    if (report.test.empty()) {
      if (auto title = title_of(line)) {
        report.test = title->first;
        report.bidirectional = title->second;
        continue;
      }
    }
    if (line.find("Waiting for client") != std::string::npos) waiting_banner = true;
    if (line.find("BW peak won't be measured") != std::string::npos) report.peak_measured = false;
    if (auto unit = header_unit(line)) {
      if (!report.unit.empty() && *unit != report.unit) {
        throw usage_error(fmt::format("{}: line {}: a second table in {}, the first was in {}", source, i + 1,
                                      excerpt(*unit), report.unit));
      }
      report.unit = std::move(*unit);
      in_rows = true;
      table_line = i + 1;
      continue;
    }
    if (!report.test.empty() && report.unit.empty() && line.find(" : ") != std::string::npos) {
      read_parameters(line, report.parameters);
    }
  }
  if (report.test.empty()) throw usage_error(fmt::format("{}: no perftest title line (\"... BW Test\")", source));
  if (report.unit.empty())
    throw usage_error(fmt::format("{}: no perftest column header (#bytes #iterations BW ...)", source));
  if (in_rows) {
    throw usage_error(
        fmt::format("{}: line {}: the table that starts here has no closing '-----' line, as "
                    "perftest prints after the last row; a file cut short?",
                    source, table_line));
  }
  if (report.rows.empty()) throw usage_error(fmt::format("{}: no perftest result rows", source));
  report.side = waiting_banner ? "server" : report.parameters.count("TX depth") != 0 ? "client" : "unknown";
  return report;
}

std::vector<core::case_result> perftest_cases(const perftest_report& report, const std::string& source) {
  std::vector<core::case_result> cases;
  const auto device = report.parameters.count("Device") ? report.parameters.at("Device") : std::string("unknown");
  const auto qps = report.parameters.count("Number of qps") ? report.parameters.at("Number of qps") : std::string("1");
  for (const auto& r : report.rows) {
    core::case_result c;
    c.benchmark = tool_of(report.test);
    c.device = device;
    c.params.set("size", static_cast<std::int64_t>(r.bytes));
    c.params.set("direction", std::string(report.bidirectional ? "bidirectional" : "unidirectional"));
    c.params.set("qps", qps);
    c.param_units["size"] = "B";
    c.metrics.push_back({"bw_average", to_gbits(r.average, report.unit), "Gb/s",
                         report.bidirectional ? "average bandwidth, both directions summed" : "average bandwidth"});
    if (report.peak_measured) c.metrics.push_back({"bw_peak", to_gbits(r.peak, report.unit), "Gb/s", "peak bandwidth"});
    c.metrics.push_back({"msg_rate", r.message_rate_mpps, "Mpps", "messages per second"});
    c.notes["source"] = source;
    c.notes["imported_from"] =
        fmt::format("perftest {} ({} side), reported in {}", report.test, report.side, report.unit);
    c.notes["iterations"] = std::to_string(r.iterations);
    for (const char* key : {"Transport type", "Link type", "Connection type", "Mtu", "TX depth"}) {
      if (report.parameters.count(key)) c.notes[key] = report.parameters.at(key);
    }
    if (!report.peak_measured) c.notes["bw_peak"] = "not measured (duration mode, -D)";
    // perftest derives the message rate from the average: bytes x messages per second.
    consistency_check check;
    const double unit_bytes_per_s = report.unit == "Gb/sec" ? 1e9 / 8 : 1048576.0;
    const double implied = r.message_rate_mpps * 1e6 * static_cast<double>(r.bytes) / unit_bytes_per_s;
    const agreement printed{perftest_rate_agreement.relative,
                            perftest_rate_agreement.absolute + 0.5 * static_cast<double>(r.bytes) / unit_bytes_per_s};
    check.agree("BW average", r.average, implied, fmt::format("MsgRate {:g} Mpps x {} B", r.message_rate_mpps, r.bytes),
                report.unit, printed);
    check.apply_to(c);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::results
