#include "platform/cgroup.hpp"

#include <algorithm>

#include "platform/cpu_list.hpp"

namespace ironbench::platform {

namespace {

const std::string cgroup_root = "sys/fs/cgroup";

// The directories from `mount/path` up to `mount` itself, deepest first.
std::vector<std::string> ancestors(const std::string& mount, std::string path) {
  std::vector<std::string> dirs;
  while (!path.empty() && path != "/") {
    dirs.push_back(mount + path);
    const auto slash = path.find_last_of('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  dirs.push_back(mount);
  return dirs;
}

std::optional<std::uint64_t> min_value(std::optional<std::uint64_t> a, std::uint64_t b) {
  return a ? std::min(*a, b) : b;
}

// The cpuset of the deepest directory that has one of `files`.
std::string read_cpuset(const sysfs_reader& reader, const std::vector<std::string>& dirs,
                        std::initializer_list<const char*> files) {
  for (const auto& dir : dirs) {
    for (const char* file : files) {
      if (const auto text = reader.read_text(dir + "/" + file); text && !text->empty()) {
        return *text;
      }
    }
  }
  return {};
}

void detect_v2(const sysfs_reader& reader, const std::vector<proc_cgroup_entry>& entries, cgroup_limits& limits) {
  limits.path = "/";
  for (const auto& e : entries) {
    if (e.hierarchy_id == 0) limits.path = e.path;
  }
  const auto dirs = ancestors(cgroup_root, limits.path);
  limits.cpuset = read_cpuset(reader, dirs, {"cpuset.cpus.effective"});
  for (const auto& dir : dirs) {
    // memory.max: "max" or bytes.
    if (const auto mem = reader.read_int(dir + "/memory.max"); mem && *mem >= 0) {
      limits.memory_limit_bytes = min_value(limits.memory_limit_bytes, *mem);
    }
    // cpu.max: "max 100000" or "200000 100000" (quota and period, microseconds).
    if (const auto text = reader.read_text(dir + "/cpu.max")) {
      const auto space = text->find(' ');
      const auto quota = parse_int(text->substr(0, space));
      const auto period = space == std::string::npos ? std::nullopt : parse_int(text->substr(space + 1));
      if (quota && period && *quota > 0 && *period > 0) {
        const double cores = static_cast<double>(*quota) / static_cast<double>(*period);
        limits.cpu_quota_cores = std::min(limits.cpu_quota_cores.value_or(cores), cores);
      }
    }
  }
}

void detect_v1(const sysfs_reader& reader, const std::vector<proc_cgroup_entry>& entries, cgroup_limits& limits) {
  // Path of the hierarchy that carries `controller` ("/" when not listed).
  const auto path_of = [&entries](std::string_view controller) -> std::string {
    for (const auto& e : entries) {
      if (std::find(e.controllers.begin(), e.controllers.end(), controller) != e.controllers.end()) {
        return e.path;
      }
    }
    return "/";
  };
  // In a container the mount usually shows only the container's own cgroup, so the host
  // path may not exist below it: directories that do not exist are simply not read.
  limits.path = path_of("cpuset");
  limits.cpuset =
      read_cpuset(reader, ancestors(cgroup_root + "/cpuset", limits.path), {"cpuset.effective_cpus", "cpuset.cpus"});

  for (const auto& dir : ancestors(cgroup_root + "/memory", path_of("memory"))) {
    const auto mem = reader.read_int(dir + "/memory.limit_in_bytes");
    if (mem && *mem >= 0 && static_cast<std::uint64_t>(*mem) < cgroup_v1_unlimited_threshold) {
      limits.memory_limit_bytes = min_value(limits.memory_limit_bytes, *mem);
    }
  }
  for (const auto& dir : ancestors(cgroup_root + "/cpu", path_of("cpu"))) {
    const auto quota = reader.read_int(dir + "/cpu.cfs_quota_us");
    const auto period = reader.read_int(dir + "/cpu.cfs_period_us");
    if (quota && period && *quota > 0 && *period > 0) {
      const double cores = static_cast<double>(*quota) / static_cast<double>(*period);
      limits.cpu_quota_cores = std::min(limits.cpu_quota_cores.value_or(cores), cores);
    }
  }
}

}  // namespace

std::vector<proc_cgroup_entry> parse_proc_cgroup(std::string_view text) {
  std::vector<proc_cgroup_entry> entries;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const auto id = parse_int(line.substr(0, first));
    if (!id || *id < 0) continue;
    proc_cgroup_entry entry;
    entry.hierarchy_id = static_cast<int>(*id);
    std::string_view list = line.substr(first + 1, second - first - 1);
    while (!list.empty()) {
      const auto comma = list.find(',');
      if (comma != 0) entry.controllers.emplace_back(list.substr(0, comma));
      list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    entry.path = line.substr(second + 1);
    if (entry.path.empty()) entry.path = "/";
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<int> cgroup_limits::cpuset_list() const { return parse_cpu_list(cpuset); }

cgroup_limits detect_cgroup(const sysfs_reader& reader) {
  cgroup_limits limits;
  const auto entries = parse_proc_cgroup(reader.read_text("proc/self/cgroup").value_or(""));
  if (reader.exists(cgroup_root + "/cgroup.controllers")) {
    limits.version = 2;
    detect_v2(reader, entries, limits);
  } else if (reader.is_directory(cgroup_root + "/cpuset") || reader.is_directory(cgroup_root + "/memory") ||
             reader.is_directory(cgroup_root + "/cpu")) {
    limits.version = 1;
    detect_v1(reader, entries, limits);
  }
  const auto cpus = parse_cpu_list(limits.cpuset);
  if (cpus.empty()) {
    limits.cpuset.clear();
  } else {
    limits.cpuset = format_cpu_list(cpus);
    limits.cpuset_cpus = static_cast<int>(cpus.size());
  }
  return limits;
}

}  // namespace ironbench::platform
