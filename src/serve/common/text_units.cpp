#include "serve/common/text_units.hpp"

#include <sys/resource.h>

#include <cctype>

namespace ironbench::serve {

std::int64_t count_words(std::string_view text) {
  std::int64_t words = 0;
  bool in_word = false;
  for (const char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

void raise_open_file_limit() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

}  // namespace ironbench::serve
