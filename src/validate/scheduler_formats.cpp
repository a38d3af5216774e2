#include "validate/scheduler_formats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/utc_time.hpp"

namespace ironbench::validate {
namespace {

/// Keeps letters, digits, spaces and `.,:;=+-_/%()`; anything else becomes a space: quotes,
/// `$`, backquotes and backslashes (a shell's quoting and expansion), `*?[]` (a glob in an
/// unquoted word), `{}~!#|&<>` (shell syntax), control characters and non-ASCII bytes.
std::string safe_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const unsigned char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view(" .,:;=+-_/%()").find(static_cast<char>(c)) != std::string_view::npos;
    out.push_back(plain ? static_cast<char>(c) : ' ');
  }
  return out;
}

std::string describe_check(const json& check) {
  auto text = check.value("check", std::string("?"));
  if (const auto device = check.value("device", std::string()); !device.empty()) text += " on " + device;
  if (check.contains("ratio") && check.at("ratio").is_number()) {
    text += fmt::format(" {:.2f}x expected", check.at("ratio").get<double>());
  }
  return text;
}

/// Joins `parts` after `head` with "; " while the whole stays within max_reason_chars, then
/// names how many were left out.
std::string joined_within_limit(const std::string& head, const std::vector<std::string>& parts) {
  std::string out = head;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto piece = (i == 0 ? ": " : "; ") + parts[i];
    const auto left = parts.size() - i - 1;
    const auto tail = left > 0 ? fmt::format("; +{} more", left) : std::string();
    if (out.size() + piece.size() + tail.size() > max_reason_chars) {
      out += fmt::format("{} +{} more", i == 0 ? ":" : ";", parts.size() - i);
      return out.substr(0, max_reason_chars);
    }
    out += piece;
  }
  return out;
}

std::vector<std::string> checks_with_verdict(const json& validation, const char* verdict) {
  std::vector<std::string> out;
  if (!validation.contains("checks")) return out;
  for (const auto& c : validation.at("checks")) {
    if (c.value("verdict", std::string()) == verdict) out.push_back(describe_check(c));
  }
  return out;
}

void write_slurm(const std::vector<node_validation>& nodes, std::ostream& out) {
  for (const auto& n : nodes) {
    if (nodes.size() > 1) out << scheduler_node_name(n.node) << '\t';
    out << drain_reason(n) << '\n';
  }
}

void write_k8s(const std::vector<node_validation>& nodes, std::ostream& out) {
  const auto now = std::chrono::system_clock::now();
  for (const auto& n : nodes) {
    auto condition = node_condition(n, now);
    // JSON carries the name exactly, as the run file does: no hostlist or shell reads it unparsed.
    if (nodes.size() > 1) condition["node"] = n.node;
    out << core::json_text(condition) << '\n';
  }
}

}  // namespace

bool is_plain_host_name(std::string_view name) {
  if (name.empty() || name.size() > 253 || name.front() == '-' || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_';
  });
}

std::string scheduler_node_name(std::string_view name) {
  if (is_plain_host_name(name)) return std::string(name);
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      ((c == '-' || c == '.') && i > 0);
    out += kept ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out.empty() ? "%00" : out;
}

std::string drain_reason(const node_validation& node) {
  const auto& v = node.validation;
  const auto verdict = v.value("verdict", std::string("FAIL"));
  const auto level = v.value("level", std::string());
  auto parts = checks_with_verdict(v, "FAIL");
  for (auto& w : checks_with_verdict(v, "WARN")) parts.push_back("WARN " + w);
  for (const auto& s : node.slow_checks) parts.push_back("slow " + s);
  const auto head = fmt::format("ironbench validate{}{} {}", level.empty() ? "" : " ", level, verdict);
  if (parts.empty()) {
    const auto checks = v.contains("checks") ? v.at("checks").size() : 0;
    return safe_text(fmt::format("{}: {} checks", head, checks));
  }
  for (auto& p : parts) p = safe_text(p);
  return joined_within_limit(safe_text(head), parts);
}

json node_condition(const node_validation& node, std::chrono::system_clock::time_point now) {
  const auto verdict = node.validation.value("verdict", std::string("FAIL"));
  const bool failed = verdict != "PASS" && verdict != "WARN";
  const auto time = iso8601_utc(now);
  return {{"type", "IronbenchValidationFailed"},
          {"status", failed ? "True" : "False"},
          {"reason", failed              ? "ValidationFailed"
                     : verdict == "WARN" ? "ValidationWarned"
                                         : "ValidationPassed"},
          {"message", drain_reason(node)},
          {"lastHeartbeatTime", time},
          {"lastTransitionTime", time}};
}

const std::vector<scheduler_format>& scheduler_formats() {
  static const std::vector<scheduler_format> table = {
      {"slurm", "the reason line a Slurm health check drains a failing node with (NODE<TAB>REASON per node)",
       write_slurm},
      {"k8s-condition", "the Kubernetes NodeCondition JSON of each node, one per line", write_k8s},
  };
  return table;
}

const scheduler_format* find_scheduler_format(const std::string& name) {
  if (name == "table") return nullptr;
  std::string names = "table";
  for (const auto& f : scheduler_formats()) {
    if (name == f.name) return &f;
    names += fmt::format(", {}", f.name);
  }
  throw usage_error(fmt::format("--format takes {}, not '{}'", names, name));
}

std::vector<node_validation> scheduler_nodes(const validation_report& validation, const node_table* table) {
  if (table == nullptr) return {{"", to_json(validation), {}}};
  std::vector<node_validation> nodes;
  for (const auto& r : table->reports) {
    node_validation n{r.node, r.validation, {}};
    for (const auto& slow : table->slow) {
      if (slow.node != r.node) continue;
      n.slow_checks.push_back(fmt::format("{} on {} at {:.2f} of the nodes median", slow.check, slow.device,
                                          slow.median > 0 ? slow.measured / slow.median : 0.0));
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

}  // namespace ironbench::validate
