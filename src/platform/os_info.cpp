#include "platform/os_info.hpp"

namespace ironbench::platform {

namespace {

// Visits each line of `text`.
template <typename F>
void for_each_line(std::string_view text, F&& visit) {
  while (!text.empty()) {
    const auto eol = text.find('\n');
    visit(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
  }
}

}  // namespace

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> values;
  for_each_line(text, [&values](std::string_view line) {
    line = trim(line);
    const auto eq = line.find('=');
    if (line.empty() || line.front() == '#' || eq == std::string_view::npos || eq == 0) return;
    std::string_view value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    values[std::string(trim(line.substr(0, eq)))] = std::string(value);
  });
  return values;
}

std::string compiled_architecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__powerpc64__)
  return "ppc64le";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

os_info detect_os(const sysfs_reader& reader) {
  os_info os;
  os.kernel_release = reader.read_text("proc/sys/kernel/osrelease").value_or("");
  auto release = reader.read_text("etc/os-release");
  if (!release) release = reader.read_text("usr/lib/os-release");
  const auto values = parse_os_release(release.value_or(""));
  const auto get = [&values](const char* key) {
    const auto it = values.find(key);
    return it == values.end() ? std::string() : it->second;
  };
  os.pretty_name = get("PRETTY_NAME");
  os.id = get("ID");
  os.version_id = get("VERSION_ID");
  os.architecture = compiled_architecture();
  return os;
}

memory_info detect_memory(const sysfs_reader& reader) {
  memory_info memory;
  for_each_line(reader.read_text("proc/meminfo").value_or(""), [&memory](std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (value.size() < 3 || value.substr(value.size() - 2) != "kB") return;
    const auto kib = parse_int(value.substr(0, value.size() - 2));
    if (!kib || *kib < 0) return;
    const auto bytes = static_cast<std::uint64_t>(*kib) * 1024u;
    if (key == "MemTotal")
      memory.total_bytes = bytes;
    else if (key == "MemAvailable")
      memory.available_bytes = bytes;
    else if (key == "Hugepagesize")
      memory.huge_page_size_bytes = bytes;
  });
  return memory;
}

}  // namespace ironbench::platform
