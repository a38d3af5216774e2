#include "platform/container.hpp"

#include <algorithm>

#include "platform/cgroup.hpp"

namespace ironbench::platform {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

void add_evidence(container_info& info, const std::string& what, const std::string& engine) {
  info.evidence.push_back(what);
  if (info.engine.empty() || info.engine == "unknown") info.engine = engine;
}

// Value of `key="value"` (or key=value) in run/.containerenv.
std::string containerenv_value(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (line.size() > key.size() && starts_with(line, key) && line[key.size()] == '=') {
      std::string_view value = line.substr(key.size() + 1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return std::string(value);
    }
  }
  return {};
}

}  // namespace

std::string engine_from_cgroup_path(const std::string& path) {
  // Look at each path component; ".service" units (docker.service on a host) do not count.
  std::string_view rest = path;
  bool kubepods = false;
  while (!rest.empty()) {
    const auto slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
    if (part.empty() || part.find(".service") != std::string_view::npos) continue;
    if (starts_with(part, "kubepods")) kubepods = true;
    if (part == "docker" || starts_with(part, "docker-")) return "docker";
    if (starts_with(part, "libpod") || part == "podman") return "podman";
    if (starts_with(part, "crio")) return "cri-o";
    if (starts_with(part, "cri-containerd") || part == "containerd") return "containerd";
    if (part == "lxc" || starts_with(part, "lxc.payload")) return "lxc";
  }
  return kubepods ? "kubernetes" : "";
}

container_info detect_container(const sysfs_reader& reader, const env_lookup& getenv) {
  container_info info;
  bool kubernetes = false;

  if (reader.exists(".dockerenv")) add_evidence(info, "/.dockerenv", "docker");
  if (const auto env = reader.read_text("run/.containerenv")) {
    const std::string engine = containerenv_value(*env, "engine");  // "podman-4.3.1"
    const auto dash = engine.find('-');
    add_evidence(info, "/run/.containerenv", engine.empty() ? "podman" : engine.substr(0, dash));
    if (dash != std::string::npos) info.engine_version = engine.substr(dash + 1);
  }
  if (const auto word = reader.read_text("run/systemd/container"); word && !word->empty()) {
    add_evidence(info, "/run/systemd/container " + *word, *word);
  }

  // Whether proc/self/cgroup shows the process at the root of its hierarchy: the v2 line
  // "0::/" when there is one (hybrid hosts have it too), else every v1 path being "/".
  std::optional<bool> self_at_root;
  bool host_paths_visible = false;
  for (const char* file : {"proc/1/cgroup", "proc/self/cgroup"}) {
    const auto entries = parse_proc_cgroup(reader.read_text(file).value_or(""));
    if (std::string_view(file) == "proc/self/cgroup" && !entries.empty()) {
      const auto v2 =
          std::find_if(entries.begin(), entries.end(), [](const proc_cgroup_entry& e) { return e.hierarchy_id == 0; });
      self_at_root = v2 != entries.end() ? v2->path == "/"
                                         : std::all_of(entries.begin(), entries.end(),
                                                       [](const proc_cgroup_entry& e) { return e.path == "/"; });
    }
    for (const auto& entry : entries) {
      const std::string engine = engine_from_cgroup_path(entry.path);
      if (engine.empty()) continue;
      if (entry.path.find("kubepods") != std::string::npos) kubernetes = true;
      host_paths_visible = true;
      add_evidence(info, "/" + std::string(file) + " " + entry.path, engine == "kubernetes" ? "unknown" : engine);
      break;  // one line per file is enough evidence
    }
  }

  if (reader.is_directory("var/run/secrets/kubernetes.io/serviceaccount")) {
    kubernetes = true;
    add_evidence(info, "kubernetes service account", "unknown");
  }
  if (getenv && getenv("KUBERNETES_SERVICE_HOST")) {
    kubernetes = true;
    add_evidence(info, "KUBERNETES_SERVICE_HOST", "unknown");
  }

  info.in_container = !info.evidence.empty();
  info.orchestrator = kubernetes ? "kubernetes" : "none";

  // cgroup namespace. Links that differ prove a private namespace; equal links only prove a
  // shared one outside containers (inside, PID 1 is the container's own init).
  const auto self_ns = reader.read_link("proc/self/ns/cgroup");
  const auto init_ns = reader.read_link("proc/1/ns/cgroup");
  if (self_ns && init_ns && *self_ns != *init_ns) {
    info.cgroup_namespace_private = true;
  } else if (info.in_container && host_paths_visible) {
    info.cgroup_namespace_private = false;  // the host's "/docker/<id>" paths show through
  } else if (info.in_container && self_at_root) {
    info.cgroup_namespace_private = *self_at_root ? std::optional<bool>(true) : std::nullopt;
  } else if (!info.in_container && self_ns && init_ns) {
    info.cgroup_namespace_private = false;
  }
  return info;
}

}  // namespace ironbench::platform
