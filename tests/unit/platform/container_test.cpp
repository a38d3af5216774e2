#include <gtest/gtest.h>

#include <map>

#include "platform/container.hpp"
#include "scenarios.hpp"

namespace ironbench::platform {
namespace {

using strings = std::vector<std::string>;

container_info detect(const std::filesystem::path& root, const env_lookup& getenv = {}) {
  return detect_container(sysfs_reader(root), getenv);
}

env_lookup fake_env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(Container, EngineFromCgroupPath) {
  EXPECT_EQ(engine_from_cgroup_path("/docker/3f2a9c1d7e4b"), "docker");
  EXPECT_EQ(engine_from_cgroup_path("/system.slice/docker-3f2a.scope"), "docker");
  EXPECT_EQ(engine_from_cgroup_path("/system.slice/docker.service"), "");
  EXPECT_EQ(engine_from_cgroup_path("/system.slice/containerd.service"), "");
  EXPECT_EQ(engine_from_cgroup_path("/machine.slice/libpod-8c1d0f.scope"), "podman");
  EXPECT_EQ(engine_from_cgroup_path("/kubepods.slice/kubepods-pod1.slice/cri-containerd-ab.scope"), "containerd");
  EXPECT_EQ(engine_from_cgroup_path("/kubepods/burstable/pod1/crio-ab"), "cri-o");
  EXPECT_EQ(engine_from_cgroup_path("/kubepods/burstable/pod1/0123abcd"), "kubernetes");
  EXPECT_EQ(engine_from_cgroup_path("/lxc.payload.c1"), "lxc");
  EXPECT_EQ(engine_from_cgroup_path("/user.slice/user-1000.slice/session-3.scope"), "");
  EXPECT_EQ(engine_from_cgroup_path("/"), "");
}

TEST(Container, NoneOnBareMetalAndVm) {
  for (const char* scenario : {"bare_metal_2socket", "kvm_vm", "aarch64_host"}) {
    const auto c = detect(test::scenario_root(scenario));
    EXPECT_FALSE(c.in_container) << scenario;
    EXPECT_EQ(c.engine, "") << scenario;
    EXPECT_EQ(c.orchestrator, "none") << scenario;
    EXPECT_TRUE(c.evidence.empty()) << scenario;
    EXPECT_FALSE(c.cgroup_namespace_private) << scenario;  // no ns links in the fake trees
  }
}

TEST(Container, DockerWithPrivateCgroupNamespace) {
  const auto c = detect(test::scenario_root("docker_pinned"));
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.engine, "docker");
  EXPECT_EQ(c.orchestrator, "none");
  EXPECT_EQ(c.evidence, (strings{"/.dockerenv"}));
  EXPECT_EQ(c.cgroup_namespace_private, true);
}

TEST(Container, PodmanContainerenvAndHostCgroupPaths) {
  const auto c = detect(test::scenario_root("podman_v1"));
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.engine, "podman");
  EXPECT_EQ(c.engine_version, "4.3.1");
  EXPECT_EQ(c.evidence, (strings{"/run/.containerenv", "/proc/1/cgroup /machine.slice/libpod-8c1d0f.scope",
                                 "/proc/self/cgroup /machine.slice/libpod-8c1d0f.scope"}));
  EXPECT_EQ(c.cgroup_namespace_private, false);
}

TEST(Container, DockerInsideVmWithHybridCgroups) {
  const auto c = detect(test::scenario_root("container_in_vm"));
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.engine, "docker");
  EXPECT_EQ(c.cgroup_namespace_private, true);  // "0::/" inside a container
}

TEST(Container, KubernetesFromCgroupServiceAccountAndEnvironment) {
  test::temp_dir dir;
  dir.write("proc/self/cgroup",
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/"
            "cri-containerd-abcd.scope\n");
  auto c = detect(dir.path());
  EXPECT_EQ(c.engine, "containerd");
  EXPECT_EQ(c.orchestrator, "kubernetes");
  EXPECT_EQ(c.cgroup_namespace_private, false);

  test::temp_dir sa;
  sa.write("var/run/secrets/kubernetes.io/serviceaccount/token", "x");
  c = detect(sa.path());
  EXPECT_TRUE(c.in_container);
  EXPECT_EQ(c.engine, "unknown");
  EXPECT_EQ(c.orchestrator, "kubernetes");

  test::temp_dir empty;
  c = detect(empty.path(), fake_env({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}}));
  EXPECT_EQ(c.orchestrator, "kubernetes");
  EXPECT_EQ(c.evidence, (strings{"KUBERNETES_SERVICE_HOST"}));
  c = detect(empty.path(), fake_env({{"HOME", "/root"}}));
  EXPECT_FALSE(c.in_container);
}

TEST(Container, SystemdContainerFile) {
  test::temp_dir dir;
  dir.write("run/systemd/container", "systemd-nspawn\n");
  const auto c = detect(dir.path());
  EXPECT_EQ(c.engine, "systemd-nspawn");
  EXPECT_EQ(c.evidence, (strings{"/run/systemd/container systemd-nspawn"}));
}

TEST(Container, NamespaceLinks) {
  test::temp_dir dir;
  std::filesystem::create_directories(dir.path() / "proc/self/ns");
  std::filesystem::create_directories(dir.path() / "proc/1/ns");
  std::filesystem::create_symlink("cgroup:[4026531835]", dir.path() / "proc/1/ns/cgroup");
  std::filesystem::create_symlink("cgroup:[4026531835]", dir.path() / "proc/self/ns/cgroup");
  EXPECT_EQ(detect(dir.path()).cgroup_namespace_private, false);
  std::filesystem::remove(dir.path() / "proc/self/ns/cgroup");
  std::filesystem::create_symlink("cgroup:[4026532999]", dir.path() / "proc/self/ns/cgroup");
  EXPECT_EQ(detect(dir.path()).cgroup_namespace_private, true);
  std::filesystem::remove(dir.path() / "proc/1/ns/cgroup");  // as when readlink gets EACCES
  EXPECT_EQ(detect(dir.path()).cgroup_namespace_private, std::nullopt);
}

TEST(Container, ContainerenvWithoutEngine) {
  test::temp_dir dir;
  dir.write("run/.containerenv", "");
  const auto c = detect(dir.path());
  EXPECT_EQ(c.engine, "podman");
  EXPECT_EQ(c.engine_version, "");
}

}  // namespace
}  // namespace ironbench::platform
