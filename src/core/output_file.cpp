#include "core/output_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "core/error.hpp"

namespace ironbench::core {
namespace {

namespace fs = std::filesystem;

constexpr int most_links_followed = 40;  // as the kernel's ELOOP limit

// The file a chain of symbolic links ends at, for a name that does not exist yet (a new file,
// or a link to one): lstat and readlink, link by link.
std::string follow_links_to_new_file(const std::string& path) {
  fs::path current(path);
  for (int followed = 0; followed < most_links_followed; ++followed) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current.string();
    std::error_code ec;
    const auto target = fs::read_symlink(current, ec);
    if (ec) throw usage_error(fmt::format("cannot read the symbolic link {}: {}", current.string(), ec.message()));
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw usage_error(fmt::format("cannot write {}: too many levels of symbolic links", path));
}

bool names_a_descriptor(const std::string& path) { return path.starts_with("/dev/") || path.starts_with("/proc/"); }

// The open descriptor a name stands for: /dev/stdout 1, /dev/stderr 2, /dev/fd/N and
// /proc/self/fd/N N; -1 for any other name.
int descriptor_of(const std::string& path) {
  if (path == "/dev/stdout") return STDOUT_FILENO;
  if (path == "/dev/stderr") return STDERR_FILENO;
  for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix) || path.size() == prefix.size() || path.size() > prefix.size() + 9) continue;
    const auto digits = std::string_view(path).substr(prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string_view::npos) return -1;
    return std::stoi(std::string(digits));
  }
  return -1;
}

// Writes through an open descriptor, sharing its offset with whoever else writes there (the
// console's lines on standard output, before and after).
void write_descriptor(int descriptor, const std::string& named, const std::function<void(std::ostream&)>& write) {
  std::cout.flush();
  std::cerr.flush();
  std::ostringstream text;
  write(text);
  const auto bytes = text.str();
  for (std::size_t done = 0; done < bytes.size();) {
    const auto n = ::write(descriptor, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw error(fmt::format("writing {} failed: {}", named, std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
}

void require_parent_directory(const std::string& named, const std::string& resolved) {
  const fs::path file(resolved);
  const auto parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(parent, ec)) {
    throw usage_error(fmt::format("cannot write {}: directory {} does not exist", named, parent.string()));
  }
}

void write_stream(const std::string& path, std::ios::openmode mode, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, mode);
  if (!out) throw error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  write(out);
  out.flush();
  if (!out) throw error(fmt::format("writing {} failed", path));
}

}  // namespace

output_file_plan plan_output_file(const std::string& path) {
  if (path.empty()) throw usage_error("an output file name is empty");
  output_file_plan plan{path, path, output_file_mode::replace_atomically};
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) throw usage_error(fmt::format("{} is a directory: give a file name", path));
    // A device, FIFO or socket, and /dev/stdout, /dev/fd/N, /proc/self/fd/N (links to a
    // descriptor, which may be a regular file): through their own name, never replaced.
    if (!S_ISREG(info.st_mode) || names_a_descriptor(path)) {
      plan.mode = output_file_mode::write_in_place;
      plan.descriptor = descriptor_of(path);
      return plan;
    }
    std::error_code ec;
    const auto real = fs::canonical(path, ec);
    if (!ec) plan.resolved = real.string();
    return plan;
  }
  if (errno == ELOOP) throw usage_error(fmt::format("cannot write {}: too many levels of symbolic links", path));
  if (errno != ENOENT) throw usage_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  plan.resolved = follow_links_to_new_file(path);
  require_parent_directory(path, plan.resolved);
  return plan;
}

void write_output_file(const output_file_plan& plan, const std::function<void(std::ostream&)>& write) {
  if (plan.mode == output_file_mode::write_in_place) {
    if (plan.descriptor >= 0) {
      write_descriptor(plan.descriptor, plan.named, write);
    } else {
      write_stream(plan.resolved, std::ios::out | std::ios::binary, write);
    }
    return;
  }
  const auto temporary = plan.resolved + ".partial";
  write_stream(temporary, std::ios::out | std::ios::trunc | std::ios::binary, write);
  std::error_code ec;
  // A file replaced keeps its permissions (the new one would have the umask's).
  if (const auto old = fs::status(plan.resolved, ec); !ec && fs::is_regular_file(old)) {
    fs::permissions(temporary, old.permissions(), ec);
  }
  fs::rename(temporary, plan.resolved, ec);
  if (ec) {
    const auto reason = ec.message();
    fs::remove(temporary, ec);
    throw error(fmt::format("cannot move {} into place as {}: {}", temporary, plan.resolved, reason));
  }
}

void write_output_file(const std::string& path, const std::string& text) {
  write_output_file(plan_output_file(path), [&](std::ostream& out) { out << text; });
}

}  // namespace ironbench::core
