#include "experiment/orphan_services.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "experiment/process_tag.hpp"

namespace ironbench::experiment {
namespace {

constexpr core::file_kind record_kind{"service record", core::mebibyte};

std::vector<std::string> lines_of(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return split_non_empty(core::read_bounded_file(path, record_kind), '\n');
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  if (lines.empty()) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    return;
  }
  std::ofstream out(path, std::ios::trunc);
  for (const auto& line : lines) out << line << "\n";
  out.flush();
  if (!out) throw error(fmt::format("cannot write {}", path));
}

}  // namespace

void service_record::add(const std::string& tag, const std::string& name) const {
  if (path_.empty()) return;
  auto lines = lines_of(path_);
  lines.push_back(tag + " " + name);
  write_lines(path_, lines);
}

void service_record::remove(const std::string& tag) const {
  if (path_.empty()) return;
  auto lines = lines_of(path_);
  std::erase_if(lines, [&](const std::string& line) { return line.starts_with(tag + " "); });
  write_lines(path_, lines);
}

void service_record::stop_orphans(std::ostream& console, double grace_s) const {
  if (path_.empty()) return;
  for (const auto& line : lines_of(path_)) {
    const auto space = line.find(' ');
    if (space == std::string::npos || space == 0) continue;
    const auto tag = line.substr(0, space);
    const auto name = line.substr(space + 1);
    const auto stopped = stop_tagged_processes(tag, grace_s);
    if (stopped.empty()) continue;
    std::vector<std::string> pids;
    for (const int pid : stopped) pids.push_back(std::to_string(pid));
    console << fmt::format("service '{}' of an earlier run was still running: stopped {} process{} (pid {})\n", name,
                           stopped.size(), stopped.size() == 1 ? "" : "es", join(pids, ", "));
  }
  write_lines(path_, {});
}

}  // namespace ironbench::experiment
