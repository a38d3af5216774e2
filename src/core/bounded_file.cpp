#include "core/bounded_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

// Closes a descriptor when it goes out of scope.
class descriptor {
 public:
  explicit descriptor(int fd) : fd_(fd) {}
  descriptor(const descriptor&) = delete;
  descriptor& operator=(const descriptor&) = delete;
  ~descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

usage_error refused(const std::string& path, const file_kind& kind, const std::string& reason) {
  return usage_error(fmt::format("cannot read {} '{}': {}", kind.name, path, reason));
}

// Why a file of this type is not read, or "" when it is.
std::string type_problem(mode_t mode, const file_kind& kind) {
  if (S_ISREG(mode)) return "";
  if (S_ISFIFO(mode)) {
    return kind.pipes ? "" : fmt::format("it is a named pipe (FIFO); a {} is read from a regular file", kind.name);
  }
  if (S_ISDIR(mode)) return "it is a directory, not a file";
  if (S_ISCHR(mode)) return "it is a character device, not a regular file";
  if (S_ISBLK(mode)) return "it is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

std::string too_large(const file_kind& kind) {
  return fmt::format("it holds more than the {} a {} may be", limit_text(kind.max_bytes), kind.name);
}

}  // namespace

std::string limit_text(std::uint64_t bytes) {
  if (bytes >= mebibyte && bytes % mebibyte == 0) return fmt::format("{} MiB", bytes / mebibyte);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{} bytes", bytes);
}

std::string read_bounded_file(const std::string& path, const file_kind& kind) {
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) throw refused(path, kind, std::strerror(errno));
  if (auto problem = type_problem(before.st_mode, kind); !problem.empty()) throw refused(path, kind, problem);
  // A FIFO that is meant is opened blocking (it waits for its writer, as cat does); anything
  // else without blocking, so that a file swapped for a FIFO after stat() cannot hang the open.
  const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (S_ISFIFO(before.st_mode) ? 0 : O_NONBLOCK);
  const descriptor fd(::open(path.c_str(), flags));
  if (fd.get() < 0) throw refused(path, kind, std::strerror(errno));
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0) throw refused(path, kind, std::strerror(errno));
  if (auto problem = type_problem(opened.st_mode, kind); !problem.empty()) throw refused(path, kind, problem);
  const auto limit = kind.max_bytes;
  if (S_ISREG(opened.st_mode)) {
    if (static_cast<std::uint64_t>(opened.st_size) > limit) throw refused(path, kind, too_large(kind));
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  }
  std::string text;
  if (S_ISREG(opened.st_mode)) text.reserve(static_cast<std::size_t>(opened.st_size));
  char buffer[65536];
  for (;;) {
    const auto n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw refused(path, kind, std::strerror(errno));
    }
    if (n == 0) break;
    // A file that grows while it is read (or a pipe) is stopped at the limit, not after it.
    if (text.size() + static_cast<std::size_t>(n) > limit) throw refused(path, kind, too_large(kind));
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace ironbench::core
