// Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without libFuzzer, so that any
// compiler builds the target and ctest checks its seed corpus and the inputs of crashes found
// before (tests/fuzz/regressions) on every run:
//   TARGET_replay PATH...
// Every regular file under each PATH (a file, or a directory read recursively) is one input,
// in name order; a PATH that does not exist is skipped (a target without regression inputs).
// A crash or sanitizer report fails the run, as it would stop libFuzzer; so does finding no
// input at all.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::filesystem::path> replay_inputs_under(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(path)) {
    files.push_back(path);
  } else if (std::filesystem::is_directory(path)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& file : replay_inputs_under(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "replay: cannot read %s\n", file.c_str());
        return 1;
      }
      // A copy of exactly the input's size, so that AddressSanitizer sees a read past its end.
      const std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
      LLVMFuzzerTestOneInput(input.data(), input.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "replay: no input found under the paths given\n");
    return 1;
  }
  std::printf("replay: %zu inputs, no crash\n", replayed);
  return 0;
}
