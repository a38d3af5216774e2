#include "core/bounded_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ironbench::core {
namespace {

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

constexpr std::size_t chunk_bytes = 65536;

}  // namespace

std::string limit_text(std::uint64_t bytes) {
  if (bytes >= mebibyte && bytes % mebibyte == 0) return fmt::format("{} MiB", bytes / mebibyte);
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{} bytes", bytes);
}

usage_error bounded_reader::refused(const std::string& reason) const {
  return usage_error(fmt::format("cannot read {} '{}': {}", kind_.name, path_, reason));
}

bounded_reader::bounded_reader(std::string path, const file_kind& kind) : path_(std::move(path)), kind_(kind) {
  struct stat before {};
  if (::stat(path_.c_str(), &before) != 0) throw refused(std::strerror(errno));
  if (auto problem = type_problem(before.st_mode, kind_); !problem.empty()) throw refused(problem);
  // Never a blocking open: a FIFO would wait there for its writer, and a signal would not end
  // the wait (SA_RESTART); a file swapped for a FIFO after stat() neither.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd_ < 0) throw refused(std::strerror(errno));
  struct stat opened {};
  std::string problem;
  if (::fstat(fd_, &opened) != 0) {
    problem = std::strerror(errno);
  } else {
    problem = type_problem(opened.st_mode, kind_);
    if (problem.empty() && S_ISREG(opened.st_mode) && static_cast<std::uint64_t>(opened.st_size) > kind_.max_bytes) {
      problem = too_large(kind_);
    }
  }
  if (!problem.empty()) {
    ::close(fd_);
    throw refused(problem);
  }
  pipe_ = S_ISFIFO(opened.st_mode);
  // A regular file never blocks; a pipe stays non-blocking and is waited on with poll().
  if (!pipe_) ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

bounded_reader::~bounded_reader() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t bounded_reader::read(char* buffer, std::size_t size) {
  if (size == 0) return 0;
  for (;;) {
    if (pipe_) {
      // Until its writer has written (or gone): poll() is ended by any signal with a handler,
      // whatever SA_RESTART says.
      pollfd waiting{fd_, POLLIN, 0};
      if (::poll(&waiting, 1, -1) < 0) {
        if (errno == EINTR) {
          throw read_interrupted(
              fmt::format("cannot read {} '{}': interrupted (SIGINT or SIGTERM) while it waited for "
                          "its writer",
                          kind_.name, path_));
        }
        throw refused(std::strerror(errno));
      }
    }
    const auto n = ::read(fd_, buffer, size);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw refused(std::strerror(errno));
    }
    // A file that grows while it is read (or a pipe) is stopped at the limit, not after it.
    taken_ += static_cast<std::uint64_t>(n);
    if (taken_ > kind_.max_bytes) throw refused(too_large(kind_));
    return static_cast<std::size_t>(n);
  }
}

bool bounded_reader::next_line(std::string& line, std::uint64_t max_line) {
  auto searched = at_;  // pending_ holds no '\n' between at_ and here: each byte is looked at once
  for (;;) {
    const auto newline = pending_.find('\n', searched);
    const auto length = (newline == std::string::npos ? pending_.size() : newline) - at_;
    if (length > max_line) {
      throw refused(fmt::format("line {} holds more than the {} a line may be", line_ + 1, limit_text(max_line)));
    }
    if (newline != std::string::npos || (ended_ && at_ < pending_.size())) {
      line.assign(pending_, at_, length);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      at_ = newline == std::string::npos ? pending_.size() : newline + 1;
      ++line_;
      return true;
    }
    if (ended_) return false;
    pending_.erase(0, at_);
    at_ = 0;
    const auto kept = pending_.size();
    searched = kept;
    pending_.resize(kept + chunk_bytes);
    const auto n = read(pending_.data() + kept, chunk_bytes);
    pending_.resize(kept + n);
    ended_ = n == 0;
  }
}

bounded_streambuf::int_type bounded_streambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const auto n = reader_.read(buffer_, sizeof buffer_);
  if (n == 0) return traits_type::eof();
  setg(buffer_, buffer_, buffer_ + n);
  return traits_type::to_int_type(*gptr());
}

std::string read_bounded_file(const std::string& path, const file_kind& kind) {
  bounded_reader reader(path, kind);
  std::string text;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
    text.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(info.st_size, kind.max_bytes)));
  }
  char buffer[chunk_bytes];
  while (const auto n = reader.read(buffer, sizeof buffer)) text.append(buffer, n);
  return text;
}

}  // namespace ironbench::core
