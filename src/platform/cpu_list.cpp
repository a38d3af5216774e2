#include "platform/cpu_list.hpp"

#include <algorithm>
#include <charconv>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

namespace {

// One non-negative CPU number, the whole of `text`.
bool parse_cpu(std::string_view text, int& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end && out >= 0 && out <= max_cpu_number;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  text = trim(text);
  std::vector<int> cpus;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && trim(text).empty()) return {};  // "0-3,"

    const auto dash = item.find('-');
    int first = 0;
    int last = 0;
    if (dash == std::string_view::npos) {
      if (!parse_cpu(item, first)) return {};
      last = first;
    } else if (!parse_cpu(item.substr(0, dash), first) || !parse_cpu(item.substr(dash + 1), last) || last < first) {
      return {};
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    if (cpus.size() > static_cast<std::size_t>(max_cpu_number)) return {};  // repeated ranges
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::string format_cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace ironbench::platform
