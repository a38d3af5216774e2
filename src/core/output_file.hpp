// Writing a file the user named (--json, --csv, --md, report -o, compare -o, result files).
//
// A regular file (or a name not there yet) is replaced atomically: the text goes to
// PATH.partial beside it, which is renamed over PATH once complete, so a reader never sees
// half a report and a failed write leaves the old file. Anything else is written where it is:
// a device (/dev/null), a FIFO or a shell's process substitution (>(jq .)), a socket, and any
// name under /dev or /proc; /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written
// through the descriptor itself, after the console's lines, even when it is a regular file the
// shell redirected. A symbolic link is followed: the file it names is written (replaced atomically when
// regular), the link stays.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ironbench::core {

/// How a named output is written.
enum class output_file_mode {
  replace_atomically,  ///< regular file or new name: PATH.partial, then rename
  write_in_place,      ///< device, FIFO, socket, /dev or /proc name: written where it is
};

/// Where the text of one named output goes.
struct output_file_plan {
  std::string named;     ///< the path as the user gave it
  std::string resolved;  ///< the file written: the path with symbolic links followed
  output_file_mode mode = output_file_mode::replace_atomically;
  int descriptor = -1;  ///< for /dev/stdout, /dev/fd/N ...: the open descriptor written through
};

/// Resolves PATH and decides how it is written; throws usage_error (exit 2) where it cannot be
/// written at all: a directory, a missing parent directory, a loop of symbolic links.
/// Call it before measuring, so a wrong name costs nothing.
[[nodiscard]] output_file_plan plan_output_file(const std::string& path);

/// Writes what WRITE puts into the stream to the planned file; throws core::error (exit 1)
/// naming the file when it cannot be opened, written or moved into place.
void write_output_file(const output_file_plan& plan, const std::function<void(std::ostream&)>& write);

/// Plans and writes TEXT to PATH.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace ironbench::core
