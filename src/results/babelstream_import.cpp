#include "results/babelstream_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/text.hpp"
#include "core/text_match.hpp"
#include "results/import_consistency.hpp"
#include "results/import_text.hpp"
#include "schema/stream.hpp"

namespace ironbench::results {
namespace {

// "max_mbytes_per_sec" (3.x-5.0), "max_MiB_per_sec" (later), "gbytes_per_sec" (4.x
// --triad-only), "MBytes/sec" and "MB/s" (console): the unit's name.
std::optional<std::string> unit_of(const std::string& column) {
  std::string_view name = column;
  if (name.starts_with("max_")) name.remove_prefix(4);
  bool rate = false;
  for (const std::string_view per : {"_per_sec", "/sec", "/s"}) {
    if (name.size() > per.size() && name.ends_with(per)) {
      name.remove_suffix(per.size());
      rate = true;
      break;
    }
  }
  if (!rate || !std::all_of(name.begin(), name.end(), is_letter)) return std::nullopt;
  static const std::map<std::string, std::string> names = {
      {"mbytes", "MB"}, {"mibytes", "MiB"}, {"gbytes", "GB"}, {"gibytes", "GiB"}, {"tbytes", "TB"}, {"tibytes", "TiB"},
      {"mb", "MB"},     {"mib", "MiB"},     {"gb", "GB"},     {"gib", "GiB"},     {"tb", "TB"},     {"tib", "TiB"}};
  const auto it = names.find(ascii_lower(name));
  if (it == names.end()) return std::nullopt;
  return it->second;
}

// Splits off a validation message that BabelStream printed to standard error, which lands
// in the middle of a line when both streams go to one file.
std::string take_validation_error(const std::string& line, std::vector<std::string>& errors) {
  for (const char* marker : {"Validation failed", "FAILED validation", "Sum was "}) {
    const auto at = line.find(marker);
    if (at != std::string::npos) {
      errors.push_back(trim_copy(line.substr(at)));
      return line.substr(0, at);
    }
  }
  return line;
}

class csv_parser {
 public:
  explicit csv_parser(const std::string& source) : source_(source) {}

  babelstream_report parse(const std::vector<std::string>& lines) {
    babelstream_report report;
    report.format = "csv";
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const auto content = trim_copy(take_validation_error(lines[i], report.validation_errors));
      if (content.empty() || content.find(',') == std::string::npos) continue;
      const auto fields = split_fields(content, ',');
      if (fields[0] == "function" || fields[0] == "phase") {
        header(fields, i + 1);
        continue;
      }
      if (columns_.empty() || skipping_) continue;
      row(fields, report, i + 1);
    }
    return report;
  }

 private:
  void header(const std::vector<std::string>& fields, std::size_t line) {
    columns_ = fields;
    skipping_ = fields[0] == "phase";  // 5.0's initialisation and read-back timings
    if (skipping_) return;
    rate_column_.clear();
    for (const auto& f : fields) {
      const auto unit = unit_of(f);
      if (!unit) continue;
      unit_ = *unit;
      rate_column_ = f;
    }
    for (const char* needed : {"num_times", "n_elements", "sizeof"}) {
      if (std::find(fields.begin(), fields.end(), needed) == fields.end()) {
        throw usage_error(
            fmt::format("{}: line {}: BabelStream CSV header without a {} column", source_, line, needed));
      }
    }
    if (rate_column_.empty()) {
      throw usage_error(fmt::format("{}: line {}: BabelStream CSV header without a bandwidth column", source_, line));
    }
  }

  void row(const std::vector<std::string>& fields, babelstream_report& report, std::size_t line) {
    if (fields.size() != columns_.size()) {
      throw usage_error(fmt::format("{}: line {}: BabelStream row with {} fields, the header has {}", source_, line,
                                    fields.size(), columns_.size()));
    }
    babelstream_row r;
    r.line = line;
    r.unit = unit_;
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const auto& column = columns_[k];
      const auto& value = fields[k];
      if (column == "function") {
        r.function = value;
        continue;
      }
      if (column == "num_times" || column == "n_elements" || column == "sizeof") {
        const auto n = parse_unsigned(value);
        if (!n)
          throw usage_error(
              fmt::format("{}: line {}: {} '{}' is not a whole number", source_, line, column, excerpt(value)));
        (column == "num_times" ? r.num_times : column == "n_elements" ? r.elements : r.element_bytes) = *n;
        continue;
      }
      const auto x = parse_number(value);
      if (!x || *x < 0)
        throw usage_error(fmt::format("{}: line {}: {} '{}' is not a number", source_, line, column, excerpt(value)));
      if (column == rate_column_) {
        (column.starts_with("max_") ? r.max_rate : r.average_rate) = *x;
      } else if (column == "min_runtime") {
        r.min_runtime_s = *x;
      } else if (column == "max_runtime") {
        r.max_runtime_s = *x;
      } else if (column == "avg_runtime") {
        r.avg_runtime_s = *x;
      } else if (column == "runtime") {
        r.total_runtime_s = *x;
      }
    }
    report.rows.push_back(std::move(r));
  }

  std::string source_;
  std::vector<std::string> columns_;
  std::string rate_column_;
  std::string unit_;
  bool skipping_ = false;
};

// The text after "KEY:" and white space at the start of `line` ("Version: 4.0" -> "4.0"); nullopt
// when the line does not start with KEY: or nothing follows.
std::optional<std::string_view> console_value(std::string_view line, std::string_view key) {
  text_scanner s(line);
  if (!s.literal(key) || !s.literal(":")) return std::nullopt;
  s.skip_spaces();
  if (s.at_end()) return std::nullopt;
  return s.rest();
}

// "Running kernels 100 times" -> "100": the first number followed by " times".
std::optional<std::string_view> console_repetitions(std::string_view line) {
  if (!line.starts_with("Running ")) return std::nullopt;
  for (std::size_t at = 8; at < line.size(); ++at) {
    if (!is_digit(line[at]) || is_digit(line[at - 1])) continue;
    text_scanner s(line.substr(at));
    const auto number = s.digits();
    if (s.literal(" times")) return number;
  }
  return std::nullopt;
}

// "Function    MBytes/sec  Min (sec)   Max         Average" -> "MBytes/sec".
std::optional<std::string> console_header_unit(std::string_view line) {
  const auto fields = split_whitespace(line);
  if (fields.size() != 6 || fields[0] != "Function" || fields[2] != "Min" || fields[3] != "(sec)" ||
      fields[4] != "Max" || fields[5] != "Average" || line.find("Min (sec)") == std::string_view::npos) {
    return std::nullopt;
  }
  return fields[1];
}

babelstream_report parse_console(const std::vector<std::string>& lines, const std::string& source) {
  babelstream_report report;
  report.format = "text";
  std::uint64_t num_times = 0, n = 0, element_bytes = 0;
  std::string unit;
  bool in_table = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto content = trim_copy(take_validation_error(lines[i], report.validation_errors));
    const auto number_after = [&](std::string_view key) -> std::optional<std::string_view> {
      const auto value = console_value(content, key);
      if (!value) return std::nullopt;
      return text_scanner(*value).digits();
    };
    if (const auto version = console_value(content, "Version")) {
      report.version = text_scanner(*version).word();
    } else if (const auto implementation = console_value(content, "Implementation")) {
      report.implementation = trim_copy(*implementation);
    } else if (const auto times = console_repetitions(content)) {
      num_times = parse_unsigned(*times).value_or(0);
    } else if (const auto elements = number_after("Number of elements"); elements && !elements->empty()) {
      n = parse_unsigned(*elements).value_or(0);
    } else if (const auto precision = console_value(content, "Precision");
               precision && (precision->starts_with("double") || precision->starts_with("float"))) {
      element_bytes = precision->starts_with("double") ? 8 : 4;
    } else if (const auto header = console_header_unit(content)) {
      const auto named = unit_of(*header);
      if (!named) {
        throw usage_error(fmt::format("{}: line {}: unknown BabelStream unit '{}'", source, i + 1, excerpt(*header)));
      }
      unit = *named;
      in_table = true;
    } else if (in_table && !content.empty()) {
      const auto fields = split_whitespace(content);
      if (!schema::find_stream_kernel(ascii_lower(fields[0]))) {  // the table ended
        in_table = false;
        continue;
      }
      if (fields.size() != 5) {
        throw usage_error(
            fmt::format("{}: line {}: BabelStream row with {} fields, expected 5", source, i + 1, fields.size()));
      }
      babelstream_row r;
      r.line = i + 1;
      r.unit = unit;
      r.function = fields[0];
      std::optional<double> values[4];
      for (int k = 0; k < 4; ++k) {
        values[k] = parse_number(fields[k + 1]);
        if (!values[k] || *values[k] < 0) {
          throw usage_error(fmt::format("{}: line {}: '{}' is not a number", source, i + 1, excerpt(fields[k + 1])));
        }
      }
      r.max_rate = values[0];
      r.min_runtime_s = values[1];
      r.max_runtime_s = values[2];
      r.avg_runtime_s = values[3];
      report.rows.push_back(std::move(r));
    }
  }
  if (!report.rows.empty() && (n == 0 || element_bytes == 0 || num_times == 0)) {
    throw usage_error(
        fmt::format("{}: BabelStream console output without the element count, precision or repetitions "
                    "(versions up to 5.0 print a rounded array size only); import its --csv output",
                    source));
  }
  for (auto& r : report.rows) {
    r.elements = n;
    r.element_bytes = element_bytes;
    r.num_times = num_times;
  }
  return report;
}

// Relative rounding error of a value printed with `decimals` decimals.
double rounding_error(double value, int decimals) { return value > 0 ? 0.5 * std::pow(10.0, -decimals) / value : 1.0; }

}  // namespace

double babelstream_unit_bytes(const std::string& unit) {
  if (unit == "MB") return 1e6;
  if (unit == "MiB") return 1048576.0;
  if (unit == "GB") return 1e9;
  if (unit == "GiB") return 1073741824.0;
  if (unit == "TB") return 1e12;
  if (unit == "TiB") return 1099511627776.0;
  throw usage_error(fmt::format("unknown BabelStream unit '{}'", unit));
}

babelstream_report parse_babelstream(const std::string& text, const std::string& source) {
  const auto lines = split_lines(text);
  if (trim_copy(text).empty()) throw usage_error(fmt::format("{}: empty file, no BabelStream output", source));
  const bool csv = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    const auto t = trim_copy(l);
    return t.starts_with("function,") || t.starts_with("phase,");
  });
  auto report = csv ? csv_parser(source).parse(lines) : parse_console(lines, source);
  if (report.rows.empty()) {
    throw usage_error(
        fmt::format("{}: no BabelStream results (a 'function,num_times,n_elements,sizeof,...' CSV "
                    "header or the 'Function  MB/s  Min (sec) ...' table, followed by rows)",
                    source));
  }
  return report;
}

std::vector<core::case_result> babelstream_cases(const babelstream_report& report, const std::string& source) {
  std::vector<core::case_result> cases;
  for (const auto& r : report.rows) {
    const double unit = babelstream_unit_bytes(r.unit);
    const auto kernel = ascii_lower(r.function);
    const auto traffic = schema::find_stream_kernel(kernel);
    if (!traffic) {
      throw usage_error(
          fmt::format("{}: line {}: '{}' is not a BabelStream kernel", source, r.line, excerpt(r.function)));
    }
    const auto dtype = schema::stream_dtype_of_size(r.element_bytes);
    if (!dtype) {
      throw usage_error(fmt::format("{}: line {}: element size {} is neither float (4) nor double (8)", source, r.line,
                                    r.element_bytes));
    }
    if (r.elements > (std::uint64_t{1} << 56)) {
      throw usage_error(fmt::format("{}: line {}: implausible element count {}", source, r.line, r.elements));
    }
    const double array_bytes = static_cast<double>(r.elements) * static_cast<double>(r.element_bytes);
    const double moved = (traffic->arrays_read + traffic->arrays_written) * array_bytes;
    core::case_result c;
    c.benchmark = "stream";
    c.device = "unknown";
    c.params.set("dtype", std::string(*dtype));
    c.params.set("size", static_cast<std::int64_t>(r.elements * r.element_bytes));
    c.params.set("kernel", kernel);
    c.param_units["size"] = "B";
    c.work.bytes_read = traffic->arrays_read * array_bytes;
    c.work.bytes_written = traffic->arrays_written * array_bytes;
    // The table's time precision: CSV prints 6 significant digits, the console 5 decimals.
    const auto time_error = [&](double t) { return report.format == "text" ? rounding_error(t, 5) : 1e-5; };
    if (r.avg_runtime_s && *r.avg_runtime_s > 0) {
      if (time_error(*r.avg_runtime_s) <= 0.01) {
        c.metrics.push_back({"bandwidth", moved / *r.avg_runtime_s / 1e9, "GB/s",
                             "bytes moved per repetition / BabelStream's average time"});
      } else {
        c.notes["bandwidth"] =
            fmt::format("not derived: the average time {} s is printed too coarsely", *r.avg_runtime_s);
      }
    }
    if (r.average_rate) {
      c.metrics.push_back({"bandwidth", *r.average_rate * unit / 1e9, "GB/s",
                           "bytes moved by every repetition / the whole run's time (BabelStream --triad-only)"});
    }
    if (r.max_rate) {
      const double best = *r.max_rate * unit / 1e9;
      if (r.min_runtime_s && *r.min_runtime_s > 0 && report.format == "csv") {
        const double expected = moved / *r.min_runtime_s / 1e9;
        if (std::abs(best - expected) > 1e-3 * expected) {
          throw usage_error(
              fmt::format("{}: line {}: the best rate {:g} {}/s does not match {} bytes per repetition "
                          "in {:g} s; not BabelStream's output for this kernel",
                          source, r.line, *r.max_rate, r.unit, moved, *r.min_runtime_s));
        }
      }
      c.metrics.push_back({"bandwidth_best", best, "GB/s", "BabelStream's best rate (bytes moved / fastest time)"});
    }
    c.notes["source"] = source;
    c.notes["imported_from"] =
        fmt::format("BabelStream {} output{}{}, rates in {}/s", report.format == "csv" ? "CSV" : "console",
                    report.version.empty() ? "" : " " + report.version,
                    report.implementation.empty() ? "" : " (" + report.implementation + ")", r.unit);
    c.notes["elements"] = std::to_string(r.elements);
    c.notes["num_times"] = std::to_string(r.num_times);
    if (r.min_runtime_s) c.notes["min_runtime_s"] = fmt::format("{:g}", *r.min_runtime_s);
    if (r.max_runtime_s) c.notes["max_runtime_s"] = fmt::format("{:g}", *r.max_runtime_s);
    if (r.avg_runtime_s) c.notes["avg_runtime_s"] = fmt::format("{:g}", *r.avg_runtime_s);
    if (r.total_runtime_s) c.notes["total_runtime_s"] = fmt::format("{:g}", *r.total_runtime_s);
    c.notes["device"] = "not named by BabelStream's output (ironbench import --device names it)";
    if (!report.validation_errors.empty()) {
      c.status = core::case_status::invalid;
      c.reason = report.validation_errors.front();
      c.notes["verification"] = fmt::format("BabelStream: {}", fmt::join(report.validation_errors, "; "));
    } else {
      c.notes["verification"] = "BabelStream's own check of the arrays (no failure reported in the output)";
    }
    consistency_check check;
    std::vector<std::pair<std::string, double>> times;
    if (r.min_runtime_s) times.emplace_back("min_runtime", *r.min_runtime_s);
    if (r.avg_runtime_s) times.emplace_back("avg_runtime", *r.avg_runtime_s);
    if (r.max_runtime_s) times.emplace_back("max_runtime", *r.max_runtime_s);
    check.ordered(times, "s",
                  report.format == "text" ? babelstream_console_time_agreement : babelstream_csv_time_agreement);
    // The mean rate (bytes moved / average time) is at most the best one (bytes moved / fastest
    // time), whether or not the fastest time is printed: within what both printings round.
    if (r.avg_runtime_s && *r.avg_runtime_s > 0 && time_error(*r.avg_runtime_s) <= 0.01 && r.max_rate) {
      check.at_most("bandwidth", moved / *r.avg_runtime_s / 1e9, *r.max_rate * unit / 1e9,
                    "BabelStream's best rate (bytes moved / fastest time)", "GB/s",
                    {time_error(*r.avg_runtime_s) + 1e-3, 0});
    }
    check.apply_to(c);
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::results
