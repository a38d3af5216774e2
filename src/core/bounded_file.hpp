// Reading a whole file that came from outside (a recipe, another tool's output, a chat
// template, a tokenizer) with a size limit per kind of file, so that a wrong path (/dev/zero, a
// FIFO nobody writes, a directory, a 30 GB log) is refused in one line instead of filling
// memory or waiting forever. Every such read in ironbench goes through read_bounded_file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ironbench::core {

/// One mebibyte, for the limits below.
inline constexpr std::uint64_t mebibyte = 1024ULL * 1024ULL;

/// What is read, and how much of it may be.
struct file_kind {
  std::string_view name;    ///< in messages: "recipe", "chat template", "nccl-tests output"
  std::uint64_t max_bytes;  ///< the most a file of this kind may hold
  /// Whether a pipe (a FIFO, `<(command)`) is read as well, up to max_bytes: for a stream
  /// that is meant (another tool's output piped in). Otherwise regular files only.
  bool pipes = false;
};

/// The limits, documented in docs/reliability.md ("Files read whole"): each several times
/// the largest real file of its kind.
namespace file_kinds {
inline constexpr file_kind recipe{"recipe", 1 * mebibyte};
inline constexpr file_kind chat_template{"chat template", 16 * mebibyte};
inline constexpr file_kind tokenizer{"tokenizer", 256 * mebibyte};
inline constexpr file_kind metric_file{"metric file", 64 * mebibyte};
}  // namespace file_kinds

/// "1 MiB", "256 MiB", "512 KiB", "100 bytes": a limit as messages and docs write it.
[[nodiscard]] std::string limit_text(std::uint64_t bytes);

/// The whole content of the file at `path`. Throws usage_error "cannot read KIND 'PATH': REASON"
/// (exit 2) when it does not exist or cannot be opened, is not a regular file (a directory, a
/// device such as /dev/zero, a socket; a FIFO unless kind.pipes), or holds more than
/// kind.max_bytes. Symbolic links are followed. Never reads more than max_bytes + 1 bytes, and
/// never waits on a FIFO it refuses.
[[nodiscard]] std::string read_bounded_file(const std::string& path, const file_kind& kind);

}  // namespace ironbench::core
