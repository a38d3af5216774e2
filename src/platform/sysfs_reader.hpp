// Read-only access to a file tree shaped like a Linux root (/proc, /sys, /etc, /run), rooted at
// a configurable directory so that detection logic can run on fake trees in tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.hpp"

namespace ironbench::platform {

/// Reads files below `root`. Every path argument is relative to the root ("proc/cpuinfo"; a
/// leading '/' is ignored, so "/proc/cpuinfo" means the same). Nothing here throws on a missing
/// or unreadable file: the result is simply empty.
class sysfs_reader {
 public:
  /// Files larger than this are truncated when read (a guard against odd pseudo-files).
  static constexpr std::size_t max_file_bytes = 16u << 20;

  explicit sysfs_reader(std::filesystem::path root = "/");

  /// The root directory all reads are relative to.
  [[nodiscard]] const std::filesystem::path& root() const { return root_; }

  /// True when the root is the real "/" (then live-only sources such as gethostname() may be
  /// consulted by callers).
  [[nodiscard]] bool is_live() const { return live_; }

  /// The absolute path of `relative` below the root.
  [[nodiscard]] std::filesystem::path resolve(std::string_view relative) const;

  /// Whole file content with leading/trailing whitespace removed; nullopt when the file is
  /// missing, unreadable or a directory.
  [[nodiscard]] std::optional<std::string> read_text(std::string_view relative) const;

  /// The file's trimmed content parsed as a signed 64-bit decimal integer; nullopt when
  /// missing or not exactly one integer.
  [[nodiscard]] std::optional<std::int64_t> read_int(std::string_view relative) const;

  /// Names of the entries of a directory, sorted; empty when missing or unreadable.
  [[nodiscard]] std::vector<std::string> list_dir(std::string_view relative) const;

  /// True when the path exists (file, directory or a symlink, even a dangling one).
  [[nodiscard]] bool exists(std::string_view relative) const;

  /// True when the path is a directory.
  [[nodiscard]] bool is_directory(std::string_view relative) const;

  /// Target of a symbolic link (e.g. "cgroup:[4026531835]" for proc/self/ns/cgroup); nullopt
  /// when it is not a link or cannot be read (EACCES is common for proc/1/ns/*).
  [[nodiscard]] std::optional<std::string> read_link(std::string_view relative) const;

 private:
  std::filesystem::path root_;
  bool live_ = false;
};

/// Parses a whole string (after trimming) as a decimal integer; nullopt when it is not one.
[[nodiscard]] std::optional<std::int64_t> parse_int(std::string_view text);

}  // namespace ironbench::platform
