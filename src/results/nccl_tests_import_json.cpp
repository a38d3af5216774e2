// The JSON file newer nccl-tests write with -J/--output_file (nccl_tests_import_parsers.hpp).
#include <fmt/format.h>

#include <set>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "core/text.hpp"
#include "results/import_text.hpp"
#include "results/nccl_tests_import_parsers.hpp"

namespace ironbench::results {
namespace {

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

std::string value_text(const json& value) {
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
    r.program = value_text(doc.at("args")[0]);
  if (doc.contains("nccl_version")) r.version_line = "nccl " + value_text(doc.at("nccl_version"));
  if (doc.contains("config") && doc.at("config").is_object()) {
    for (const auto& [key, value] : doc.at("config").items()) {
      if (key != "devices") r.settings[key] = value_text(value);
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
    row.type = value_text(e.at("type"));
    row.redop = e.contains("redop") ? trim_copy(value_text(e.at("redop"))) : std::string();
    if (e.contains("root")) {
      const auto root = parse_integer(trim_copy(value_text(e.at("root"))));
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

}  // namespace

nccl_tests_report parse_nccl_tests_json(const std::string& text, const std::string& source) {
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

}  // namespace ironbench::results
