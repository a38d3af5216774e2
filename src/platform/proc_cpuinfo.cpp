#include "platform/proc_cpuinfo.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cstdlib>

#include "platform/sysfs_reader.hpp"

namespace ironbench::platform {

namespace {

// Decimal or 0x-prefixed hexadecimal integer.
std::optional<int> parse_number(std::string_view text) {
  text = trim(text);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, base);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  const std::string s(trim(text));
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return value;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) words.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

}  // namespace

std::string arm_implementer_name(int implementer) {
  switch (implementer) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x50: return "APM";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return {};
  }
}

std::string arm_part_name(int implementer, int part) {
  if (implementer != 0x41) return {};
  switch (part) {
    case 0xd0c: return "Neoverse-N1";
    case 0xd40: return "Neoverse-V1";
    case 0xd49: return "Neoverse-N2";
    case 0xd4f: return "Neoverse-V2";
    case 0xd84: return "Neoverse-V3";
    case 0xd8e: return "Neoverse-N3";
    default: return {};
  }
}

namespace {

template <typename T>
void set_once(std::optional<T>& field, std::optional<T> value) {
  if (!field) field = value;
}

void set_once(std::string& field, std::string_view value) {
  if (field.empty()) field = value;
}

}  // namespace

proc_cpuinfo parse_proc_cpuinfo(std::string_view text) {
  // Identity fields are taken from the first line that carries them: per-processor blocks
  // repeat them, and old aarch64 kernels print them once after all "processor" lines.
  proc_cpuinfo info;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));

    if (key == "processor") {
      if (const auto n = parse_number(value)) info.processors.push_back({*n, {}, {}});
    } else if (key == "physical id" && !info.processors.empty()) {
      info.processors.back().physical_id = parse_number(value);
    } else if (key == "core id" && !info.processors.empty()) {
      info.processors.back().core_id = parse_number(value);
    } else if (key == "vendor_id") {
      set_once(info.vendor, value);
    } else if (key == "model name") {
      set_once(info.model_name, value);
    } else if (key == "cpu family") {
      set_once(info.family, parse_number(value));
    } else if (key == "model") {
      set_once(info.model, parse_number(value));
    } else if (key == "stepping") {
      set_once(info.stepping, parse_number(value));
    } else if (key == "cpu MHz") {
      set_once(info.cpu_mhz, parse_double(value));
    } else if (key == "CPU implementer") {
      set_once(info.arm_implementer, parse_number(value));
    } else if (key == "CPU part") {
      set_once(info.arm_part, parse_number(value));
    } else if ((key == "flags" || key == "Features") && info.flags.empty()) {
      info.flags = split_words(value);
    }
  }

  // aarch64: no vendor_id / model name lines; describe the core from implementer and part.
  if (info.arm_implementer) {
    const int impl = *info.arm_implementer;
    if (info.vendor.empty()) {
      const std::string name = arm_implementer_name(impl);
      info.vendor = name.empty() ? fmt::format("implementer 0x{:02x}", impl) : name;
    }
    if (info.model_name.empty() && info.arm_part) {
      const std::string part = arm_part_name(impl, *info.arm_part);
      info.model_name = part.empty() ? fmt::format("{} part 0x{:03x}", info.vendor, *info.arm_part)
                                     : fmt::format("{} {}", info.vendor, part);
    }
  }
  return info;
}

}  // namespace ironbench::platform
