#include "platform/sysfs_reader.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <system_error>

namespace ironbench::platform {

namespace fs = std::filesystem;

std::optional<std::int64_t> parse_int(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

sysfs_reader::sysfs_reader(fs::path root) : root_(std::move(root)) {
  if (root_.empty()) root_ = "/";
  live_ = root_.lexically_normal() == fs::path("/");
}

fs::path sysfs_reader::resolve(std::string_view relative) const {
  while (!relative.empty() && relative.front() == '/') relative.remove_prefix(1);
  return relative.empty() ? root_ : root_ / fs::path(relative);
}

std::optional<std::string> sysfs_reader::read_text(std::string_view relative) const {
  const fs::path path = resolve(relative);
  std::error_code ec;
  if (fs::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // /proc and /sys files report size 0, so read in chunks until EOF.
  std::string content;
  char buffer[8192];
  while (content.size() < max_file_bytes) {
    in.read(buffer, sizeof buffer);
    content.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (!in) break;
  }
  if (in.bad()) return std::nullopt;
  return std::string(trim(content));
}

std::optional<std::int64_t> sysfs_reader::read_int(std::string_view relative) const {
  const auto text = read_text(relative);
  return text ? parse_int(*text) : std::nullopt;
}

std::vector<std::string> sysfs_reader::list_dir(std::string_view relative) const {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(resolve(relative), ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool sysfs_reader::exists(std::string_view relative) const {
  std::error_code ec;
  return fs::exists(fs::symlink_status(resolve(relative), ec));
}

bool sysfs_reader::is_directory(std::string_view relative) const {
  std::error_code ec;
  return fs::is_directory(resolve(relative), ec);
}

std::optional<std::string> sysfs_reader::read_link(std::string_view relative) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(resolve(relative), ec);
  if (ec) return std::nullopt;
  return target.string();
}

}  // namespace ironbench::platform
