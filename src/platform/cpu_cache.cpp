#include "platform/cpu_cache.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>

#include "platform/cpu_list.hpp"
#include "platform/cpu_topology.hpp"

namespace ironbench::platform {

namespace {

int type_rank(const std::string& type) {
  if (type == "Data") return 0;
  if (type == "Instruction") return 1;
  if (type == "Unified") return 2;
  return 3;
}

struct cache_group {
  std::uint64_t size_bytes = 0;
  std::set<std::string> shared_lists;
};

}  // namespace

std::string cache_info::label() const {
  std::string name = "L" + std::to_string(level);
  if (type == "Data") name += 'd';
  if (type == "Instruction") name += 'i';
  return name;
}

std::optional<std::uint64_t> parse_cache_size(std::string_view text) {
  text = trim(text);
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{}) return std::nullopt;
  std::string_view unit = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  std::uint64_t multiplier = 1;
  if (!unit.empty()) {
    switch (unit.front()) {
      case 'K':
      case 'k':
        multiplier = 1ull << 10;
        unit.remove_prefix(1);
        break;
      case 'M':
        multiplier = 1ull << 20;
        unit.remove_prefix(1);
        break;
      case 'G':
        multiplier = 1ull << 30;
        unit.remove_prefix(1);
        break;
      default: break;
    }
  }
  if (!(unit.empty() || unit == "B" || (multiplier > 1 && unit == "iB"))) return std::nullopt;
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

std::vector<cache_info> detect_caches(const sysfs_reader& reader, const std::vector<int>& cpus) {
  const std::vector<int> scanned = cpus.empty() ? list_cpu_directories(reader) : cpus;
  std::map<std::pair<int, std::string>, cache_group> groups;
  for (const int cpu : scanned) {
    const std::string base = "sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/";
    for (const auto& index : reader.list_dir(base)) {
      if (index.rfind("index", 0) != 0) continue;
      const std::string dir = base + index + "/";
      const auto level = reader.read_int(dir + "level");
      const auto type = reader.read_text(dir + "type");
      const auto size_text = reader.read_text(dir + "size");
      const auto size = size_text ? parse_cache_size(*size_text) : std::nullopt;
      if (!level || *level < 0 || *level > 16 || !type || type->empty() || !size) continue;
      // A missing shared_cpu_list means "this CPU only": one instance per CPU.
      const auto shared = reader.read_text(dir + "shared_cpu_list");
      const std::string key = shared ? format_cpu_list(parse_cpu_list(*shared)) : "cpu" + std::to_string(cpu);
      auto& group = groups[{static_cast<int>(*level), *type}];
      if (group.size_bytes == 0) group.size_bytes = *size;
      group.shared_lists.insert(key);
    }
  }

  std::vector<cache_info> caches;
  for (const auto& [key, group] : groups) {
    const int instances = static_cast<int>(group.shared_lists.size());
    caches.push_back(
        {key.first, key.second, group.size_bytes, instances, group.size_bytes * static_cast<std::uint64_t>(instances)});
  }
  std::sort(caches.begin(), caches.end(), [](const cache_info& a, const cache_info& b) {
    return a.level != b.level ? a.level < b.level : type_rank(a.type) < type_rank(b.type);
  });
  return caches;
}

std::optional<std::uint64_t> last_level_cache_bytes_total(const std::vector<cache_info>& caches) {
  int top = 0;
  for (const auto& c : caches) {
    if (c.type != "Instruction") top = std::max(top, c.level);
  }
  if (top == 0) return std::nullopt;
  std::uint64_t total = 0;
  for (const auto& c : caches) {
    if (c.level == top && c.type != "Instruction") total += c.total_bytes;
  }
  return total;
}

}  // namespace ironbench::platform
