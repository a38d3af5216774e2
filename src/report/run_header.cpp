#include "report/run_header.hpp"

#include <fmt/format.h>

#include "core/device_spread.hpp"
#include "core/run_estimate.hpp"

namespace ironbench::report {
namespace {

// "GPUs side by side, one case at a time per GPU: cuda:0, cuda:1 (1 min 2 s); then ...".
std::string schedule_line(const json& schedule) {
  if (!schedule.is_object() || !schedule.contains("stages")) return "";
  std::vector<std::string> stages;
  for (const auto& s : schedule.at("stages")) {
    std::vector<std::string> devices;
    for (const auto& d : s.value("devices", json::array())) devices.push_back(d.get<std::string>());
    stages.push_back(fmt::format("{}: {} ({})", s.value("how", std::string()), fmt::join(devices, ", "),
                                 core::format_wall_time(s.value("end_s", 0.0) - s.value("start_s", 0.0))));
  }
  return fmt::format("{}, {} (estimated at most {}): {}", schedule.value("mode", std::string()),
                     core::format_wall_time(schedule.value("wall_s", 0.0)),
                     core::format_wall_time(schedule.value("estimate_s", 0.0)), fmt::join(stages, "; then "));
}

std::string lost_line(const json& schedule) {
  if (!schedule.is_object() || !schedule.contains("hung")) return "";
  std::vector<std::string> lost;
  for (const auto& h : schedule.at("hung")) {
    lost.push_back(fmt::format("{}: {} did not end within {} (its cases left were not run)",
                               h.value("device", std::string()), h.value("case", std::string()),
                               core::format_wall_time(h.value("limit_s", 0.0))));
  }
  return fmt::format("{}", fmt::join(lost, "; "));
}

std::string slow_line(const json& slow) {
  if (!slow.is_array()) return "";
  std::vector<std::string> lines;
  for (const auto& s : slow) {
    core::slow_device d;
    d.device = s.value("device", std::string());
    d.verdict = s.value("verdict", std::string());
    d.case_label = s.value("case", std::string());
    d.unit = s.value("unit", std::string());
    d.value = s.value("value", 0.0);
    d.peers_median = s.value("peers_median", 0.0);
    d.ratio = s.value("ratio", 0.0);
    d.peers = s.value("peers", std::size_t{0});
    d.slow_cases = s.value("slow_cases", std::size_t{0});
    d.compared_cases = s.value("compared_cases", std::size_t{0});
    lines.push_back(core::describe(d));
  }
  return fmt::format("{}", fmt::join(lines, "; "));
}

}  // namespace

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
  const auto schedule = run.settings.value("schedule", json());
  add("schedule", schedule_line(schedule));
  add("lost devices", lost_line(schedule));
  add("slow devices", slow_line(run.settings.value("slow_devices", json())));
  return lines;
}

}  // namespace ironbench::report
