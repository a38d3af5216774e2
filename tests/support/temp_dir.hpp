// Temporary directories for tests: an RAII directory removed with its contents, and one that
// stays behind for inspection.
#pragma once

#include <filesystem>
#include <string>

namespace ironbench::testing {

/// A fresh empty directory under the system temporary directory, named `prefix` + six random
/// characters. Throws std::runtime_error when it cannot be made.
[[nodiscard]] std::string make_temp_dir(const std::string& prefix);

/// A fresh empty directory (make_temp_dir), removed with its contents on destruction.
class temp_dir {
 public:
  explicit temp_dir(const std::string& prefix = "ironbench_test_");
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  temp_dir(temp_dir&&) = delete;
  temp_dir& operator=(temp_dir&&) = delete;

  /// The directory.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// The directory as a string.
  [[nodiscard]] std::string str() const { return path_.string(); }
  /// `relative` inside the directory.
  [[nodiscard]] std::filesystem::path operator/(const std::filesystem::path& relative) const {
    return path_ / relative;
  }

  /// Writes `text` to `relative`, creating parent directories; returns the file's path.
  std::filesystem::path write(const std::string& relative, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

}  // namespace ironbench::testing
