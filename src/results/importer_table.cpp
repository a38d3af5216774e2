#include "results/importer_table.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "results/babelstream_import.hpp"
#include "results/nccl_tests_import.hpp"
#include "results/perftest_import.hpp"
#include "results/vllm_import.hpp"

namespace ironbench::results {
namespace {

using cases = std::vector<core::case_result>;

std::vector<core::case_result> nccl_tests_file_cases(const std::string& text, const std::string& source,
                                                     const import_options& options) {
  cases all;
  const nccl_tests_options nccl{options.collective, options.ranks};
  for (const auto& report : parse_nccl_tests(text, source)) {
    for (auto& c : nccl_tests_cases(report, source, nccl)) all.push_back(std::move(c));
  }
  return all;
}

json nccl_tests_run_settings(const std::string& text, const std::string& source) {
  json settings = json::object();
  std::optional<json> stragglers;
  std::size_t with_process_times = 0;
  for (const auto& report : parse_nccl_tests(text, source)) {
    if (auto s = nccl_tests_stragglers(report)) {
      stragglers = std::move(s);
      ++with_process_times;
    }
  }
  if (with_process_times == 1) {
    settings["stragglers"] = std::move(*stragglers);
  } else if (with_process_times > 1) {
    settings["stragglers_note"] =
        fmt::format("{}: {} tables with per-process times; no one straggler report", source, with_process_times);
  }
  return settings;
}

template <typename Pick>
std::string joined(Pick pick, const char* separator) {
  std::string text;
  for (const auto& row : importers()) {
    const auto part = pick(row);
    if (part.empty()) continue;
    if (!text.empty()) text += separator;
    text += part;
  }
  return text;
}

}  // namespace

const std::vector<importer>& importers() {
  static const std::vector<importer> table = {
      {"perftest", "ib_write_bw, ib_read_bw, ib_send_bw output", false, 16 * core::mebibyte,
       [](const std::string& text, const std::string& source, const import_options&) {
         return perftest_cases(parse_perftest(text, source), source);
       }},
      {"vllm", "vllm bench serve --save-result JSON", false, 512 * core::mebibyte,
       [](const std::string& text, const std::string& source, const import_options&) {
         return vllm_cases(parse_vllm_results(text, source), source);
       }},
      {"nccl-tests", "nccl-tests/rccl-tests output or -J JSON", true, 64 * core::mebibyte, nccl_tests_file_cases,
       nccl_tests_run_settings},
      {"babelstream", "BabelStream --csv output", false, 16 * core::mebibyte,
       [](const std::string& text, const std::string& source, const import_options&) {
         return babelstream_cases(parse_babelstream(text, source), source);
       }},
  };
  return table;
}

const importer* find_importer(std::string_view name) {
  for (const auto& row : importers()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

std::string importer_names() {
  return joined([](const importer& row) { return std::string(row.name); }, ", ");
}

std::string importer_help() {
  return joined([](const importer& row) { return fmt::format("{} ({})", row.name, row.help); }, ", ");
}

std::string collective_importer_names() {
  return joined([](const importer& row) { return row.takes_collective_and_ranks ? std::string(row.name) : ""; },
                " or ");
}

void check_import_request(const import_request& request) {
  const auto* row = find_importer(request.format);
  if (row == nullptr) {
    throw usage_error(fmt::format("unknown import format '{}' (known: {})", request.format, importer_names()));
  }
  if (!row->takes_collective_and_ranks && (!request.options.collective.empty() || request.options.ranks != 0)) {
    throw usage_error(
        fmt::format("--collective and --ranks apply to {}, not {}", collective_importer_names(), request.format));
  }
  if (request.options.ranks < 0) {
    throw usage_error(fmt::format("--ranks must be positive, not {}", request.options.ranks));
  }
}

std::vector<core::case_result> import_cases(const import_request& request) { return import_run(request).cases; }

imported_run import_run(const import_request& request) {
  check_import_request(request);
  const auto& row = *find_importer(request.format);
  const auto kind_name = fmt::format("{} output", row.name);
  const core::file_kind kind{kind_name, row.max_bytes, true};
  imported_run run;
  std::set<std::string> repeated;
  for (const auto& file : request.files) {
    const auto text = core::read_bounded_file(file, kind);
    for (auto& c : row.cases(text, file, request.options)) {
      if (!request.device.empty()) c.device = request.device;
      run.cases.push_back(std::move(c));
    }
    if (row.run_settings == nullptr) continue;
    const auto settings = row.run_settings(text, file);
    for (const auto& [key, value] : settings.items()) {
      if (run.settings.contains(key)) repeated.insert(key);
      run.settings[key] = value;
    }
  }
  for (const auto& key : repeated) {
    run.settings.erase(key);
    run.settings[key + "_note"] = fmt::format("several files give {}: none kept; import them one file at a time", key);
  }
  return run;
}

}  // namespace ironbench::results
