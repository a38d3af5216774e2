#include "report/run_header.hpp"

#include <fmt/format.h>

namespace ironbench::report {

std::string json_text(const json& document, std::initializer_list<const char*> path) {
  const json* node = &document;
  for (const char* key : path) {
    if (!node->is_object() || !node->contains(key)) return "";
    node = &node->at(key);
  }
  if (node->is_string()) return node->get<std::string>();
  if (node->is_number() || node->is_boolean()) return node->dump();
  return "";
}

std::vector<std::pair<std::string, std::string>> header_lines(const core::run_result& run) {
  std::vector<std::pair<std::string, std::string>> lines;
  auto add = [&](std::string key, std::string value) {
    if (!value.empty()) lines.emplace_back(std::move(key), std::move(value));
  };
  const auto version = json_text(run.tool, {"version"});
  const auto git = json_text(run.tool, {"git"});
  add("ironbench", git.empty() ? version : fmt::format("{} ({})", version, git));
  add("started", run.start_time);
  add("host", json_text(run.host, {"hostname"}));
  const auto cpu = json_text(run.host, {"cpu", "model_name"});
  const auto cores = json_text(run.host, {"cpu", "physical_cores"});
  add("cpu", cores.empty() ? cpu : fmt::format("{} ({} cores)", cpu, cores));
  add("environment", json_text(run.host, {"environment_kind"}));
  std::vector<std::string> devices;
  for (const auto& d : run.devices) devices.push_back(d.name.empty() ? d.id : fmt::format("{} ({})", d.id, d.name));
  add("devices", fmt::format("{}", fmt::join(devices, ", ")));
  std::string command;
  for (const auto& a : run.argv) command += (command.empty() ? "" : " ") + a;
  add("command", command);
  return lines;
}

}  // namespace ironbench::report
