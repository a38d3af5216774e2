// Is this process inside a container, which engine runs it, and is it orchestrated?
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

/// Looks up an environment variable; nullopt when unset. Injected so tests can fake it.
using env_lookup = std::function<std::optional<std::string>(const std::string&)>;

/// Container facts and the verdict drawn from them.
struct container_info {
  bool in_container = false;   ///< any evidence at all
  std::string engine;          ///< "docker", "podman", "containerd", "cri-o", "lxc",
                               ///< "systemd-nspawn", ... ; "unknown" when in a container
                               ///< of no recognised engine; "" when not in a container
  std::string engine_version;  ///< from run/.containerenv engine="podman-4.3.1": "4.3.1"
  std::string orchestrator;    ///< "kubernetes" or "none"
  /// Whether the process has its own cgroup namespace (then /proc/self/cgroup shows "/"
  /// paths): compared from the proc/self/ns/cgroup and proc/1/ns/cgroup links when both are
  /// readable, else inferred from the paths in a container; nullopt when undecidable.
  std::optional<bool> cgroup_namespace_private;
  std::vector<std::string> evidence;  ///< what was seen, e.g. "/.dockerenv"
};

/// Detects the container from files below the reader's root: .dockerenv, run/.containerenv,
/// run/systemd/container, the cgroup paths of proc/1 and proc/self, the Kubernetes service
/// account directory; and from the KUBERNETES_SERVICE_HOST variable through `getenv` (which
/// may be empty: no environment).
[[nodiscard]] container_info detect_container(const sysfs_reader& reader, const env_lookup& getenv);

/// The container runtime a cgroup path names ("/docker/3f2a..." and
/// "/system.slice/docker-3f2a.scope" -> "docker", ".../cri-containerd-ab.scope" ->
/// "containerd", "crio-..." -> "cri-o", "libpod-..." -> "podman"); "kubernetes" for a
/// kubepods path naming no runtime; empty when none ("docker.service" does not count).
[[nodiscard]] std::string engine_from_cgroup_path(const std::string& path);

}  // namespace ironbench::platform
