#include "results/perftest_import.hpp"

#include <fmt/format.h>

#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace ironbench::results {
namespace {

// " Dual-port       : OFF\t\tDevice         : mlx5_0" holds two "key : value" pairs, separated
// by tabs (or, where a terminal copy turned them into spaces, by a run of spaces before the
// next key).
void read_parameters(const std::string& line, std::map<std::string, std::string>& parameters) {
  static const std::regex separator(R"(\t+|\s{3,}(?=[A-Za-z][^:]*:))");
  for (std::sregex_token_iterator it(line.begin(), line.end(), separator, -1), end; it != end; ++it) {
    const std::string segment = *it;
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

}  // namespace

double to_gbits(double value, const std::string& unit) {
  if (unit == "Gb/sec") return value;
  return value * 1048576.0 * 8.0 / 1e9;  // MB/sec and MiB/sec: perftest divides by 2^20
}

perftest_report parse_perftest(const std::string& text, const std::string& source) {
  static const std::regex title(
      R"(^\s*(RDMA_Write|RDMA_Read|Send|Atomic(?:_\w+)?)\s+(Bidirectional\s+)?(?:Post List\s+)?BW Test\s*$)");
  static const std::regex header(
      R"(#bytes\s+#iterations\s+BW peak\[([A-Za-z/]+)\]\s+BW average\[([A-Za-z/]+)\]\s+MsgRate\[Mpps\])");
  static const std::regex row(R"(^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)(?:\s+[0-9.]+)?\s*$)");
  perftest_report report;
  bool in_rows = false;
  bool waiting_banner = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (report.test.empty() && std::regex_match(line, m, title)) {
      report.test = m[1].str();
      report.bidirectional = m[2].matched;
      continue;
    }
    if (line.find("Waiting for client") != std::string::npos) waiting_banner = true;
    if (line.find("BW peak won't be measured") != std::string::npos) report.peak_measured = false;
    if (std::regex_search(line, m, header)) {
      report.unit = m[2].str();
      in_rows = true;
      continue;
    }
    if (in_rows && std::regex_match(line, m, row)) {
      report.rows.push_back({std::stoull(m[1].str()), std::stoull(m[2].str()), std::stod(m[3].str()),
                             std::stod(m[4].str()), std::stod(m[5].str())});
      continue;
    }
    if (!report.test.empty() && !in_rows && line.find(" : ") != std::string::npos)
      read_parameters(line, report.parameters);
  }
  if (report.test.empty()) throw usage_error(fmt::format("{}: no perftest title line (\"... BW Test\")", source));
  if (report.unit.empty())
    throw usage_error(fmt::format("{}: no perftest column header (#bytes #iterations BW ...)", source));
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
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::results
