// Reading a file that came from outside (a recipe, another tool's output, a chat template, a
// tokenizer, a serving dataset) with a size limit per kind of file, so that a wrong path
// (/dev/zero, a FIFO nobody writes, a directory, a 30 GB log, a 300 MB line) is refused in one
// line instead of filling memory or waiting forever. Every such read in ironbench goes through
// bounded_reader: read_bounded_file for a file read whole, next_line for one read line by line.
//
// Nothing here waits uninterruptibly: a file that is not a regular one is refused before it is
// opened, or (a pipe where one is meant) opened without blocking and waited on with poll(),
// which a signal with a handler (ironbench's SIGINT and SIGTERM) always ends: read_interrupted.
#pragma once

#include <cstdint>
#include <streambuf>
#include <string>
#include <string_view>

#include "core/error.hpp"

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
/// `serve --dataset-path`: ShareGPT's (a JSON document, 642 MiB for ShareGPT_V3), a custom
/// JSONL of prompts, a trace. A regular file only: a sweep reads it at every point.
inline constexpr file_kind dataset{"--dataset-path file", 1024 * mebibyte};
}  // namespace file_kinds

/// The longest line bounded_reader::next_line takes (a JSONL dataset's prompt, a trace's
/// request): far above a 1-million-token prompt (about 5 MB of text).
inline constexpr std::uint64_t max_line_bytes = 16 * mebibyte;

/// A read of a pipe stopped by a signal (SIGINT, SIGTERM) while it waited for its writer.
/// Exit code 130 (cli's exit_interrupted).
class read_interrupted : public error {
 public:
  using error::error;
};

/// "1 MiB", "256 MiB", "512 KiB", "100 bytes": a limit as messages and docs write it.
[[nodiscard]] std::string limit_text(std::uint64_t bytes);

/// The whole content of the file at `path`. Throws usage_error "cannot read KIND 'PATH': REASON"
/// (exit 2) when it does not exist or cannot be opened, is not a regular file (a directory, a
/// device such as /dev/zero, a socket; a FIFO unless kind.pipes), or holds more than
/// kind.max_bytes. Symbolic links are followed. Never reads more than max_bytes + 1 bytes, and
/// never waits on a FIFO it refuses.
[[nodiscard]] std::string read_bounded_file(const std::string& path, const file_kind& kind);

/// A file of `kind` opened for reading in pieces, with read_bounded_file's checks and messages:
/// refused at construction when it does not exist, is not a regular file (nor a pipe where
/// kind.pipes) or is larger than kind.max_bytes; read() and next_line() throw usage_error as
/// soon as more than kind.max_bytes came (a file that grows, a pipe). Never blocks in open(); a
/// pipe is waited on with poll(), which a signal ends (read_interrupted).
class bounded_reader {
 public:
  bounded_reader(std::string path, const file_kind& kind);
  ~bounded_reader();
  bounded_reader(const bounded_reader&) = delete;
  bounded_reader& operator=(const bounded_reader&) = delete;

  /// Up to `size` bytes into `buffer`; 0 at the end of the file.
  [[nodiscard]] std::size_t read(char* buffer, std::size_t size);
  /// The next line, without its '\n' (nor a '\r' before it); false after the last one. A line
  /// longer than `max_line` bytes is a usage_error "cannot read KIND 'PATH': line N holds more
  /// than the 16 MiB a line may be", thrown before more than max_line + 64 KiB of it is kept.
  [[nodiscard]] bool next_line(std::string& line, std::uint64_t max_line = max_line_bytes);
  /// The number of the line next_line returned last (1 for the first).
  [[nodiscard]] std::uint64_t line_number() const { return line_; }
  /// The usage_error "cannot read KIND 'PATH': REASON".
  [[nodiscard]] usage_error refused(const std::string& reason) const;

 private:
  std::string path_;
  file_kind kind_;
  int fd_ = -1;
  bool pipe_ = false;
  std::uint64_t taken_ = 0;  ///< bytes read from the file so far
  std::string pending_;      ///< what next_line read past its last line
  std::size_t at_ = 0;       ///< where in pending_ the next line starts
  bool ended_ = false;
  std::uint64_t line_ = 0;
};

/// A std::streambuf over a bounded_reader, for a parser that reads a stream (a JSON document):
/// the reader's errors come out of the parser as they are.
class bounded_streambuf : public std::streambuf {
 public:
  explicit bounded_streambuf(bounded_reader& reader) : reader_(reader) {}

 protected:
  int_type underflow() override;

 private:
  bounded_reader& reader_;
  char buffer_[65536];
};

}  // namespace ironbench::core
