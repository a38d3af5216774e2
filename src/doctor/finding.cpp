#include "doctor/finding.hpp"

#include <algorithm>

namespace ironbench::doctor {

const char* to_string(severity level) {
  switch (level) {
    case severity::info: return "info";
    case severity::warning: return "warning";
    case severity::critical: return "critical";
  }
  return "warning";
}

finding make_finding(severity level, std::string summary, std::string evidence, std::vector<std::string> affects,
                     std::string fix, std::string device) {
  finding f;
  f.level = level;
  f.summary = std::move(summary);
  f.evidence = std::move(evidence);
  f.affects = std::move(affects);
  f.fix = std::move(fix);
  f.device = std::move(device);
  return f;
}

json to_json(const finding& f) {
  json j = {{"check", f.check},       {"severity", to_string(f.level)}, {"summary", f.summary},
            {"evidence", f.evidence}, {"affects", f.affects},           {"fix", f.fix}};
  if (!f.device.empty()) j["device"] = f.device;
  return j;
}

finding finding_from_json(const json& j) {
  finding f;
  f.check = j.value("check", "");
  const auto level = j.value("severity", "warning");
  f.level = level == "info" ? severity::info : level == "critical" ? severity::critical : severity::warning;
  f.summary = j.value("summary", "");
  f.evidence = j.value("evidence", "");
  if (j.contains("affects") && j["affects"].is_array()) {
    for (const auto& a : j["affects"]) {
      if (a.is_string()) f.affects.push_back(a.get<std::string>());
    }
  }
  f.device = j.value("device", "");
  f.fix = j.value("fix", "");
  return f;
}

bool affects_case(const finding& f, const std::string& benchmark, const std::string& device) {
  if (!f.device.empty() && f.device != device) return false;
  return std::any_of(f.affects.begin(), f.affects.end(),
                     [&](const std::string& a) { return a == "all" || a == benchmark; });
}

}  // namespace ironbench::doctor
