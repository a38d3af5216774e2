#include "core/output_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
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
    if (!S_ISREG(info.st_mode)) {
      plan.mode = output_file_mode::write_in_place;  // a device, FIFO or socket: through its own name
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
    write_stream(plan.resolved, std::ios::out | std::ios::binary, write);
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
