// Reading files and text in tests.
#pragma once

#include <string>
#include <vector>

namespace ironbench::testing {

/// The whole content of a file (empty when it cannot be read).
[[nodiscard]] std::string read_file(const std::string& path);

/// Lines of `text` (without the final empty line).
[[nodiscard]] std::vector<std::string> lines_of(const std::string& text);

}  // namespace ironbench::testing
