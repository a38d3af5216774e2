// libFuzzer target of the babelstream importer: BabelStream's CSV and console output.
// See importer_fuzz.hpp for what counts as a finding.
#include "importer_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("babelstream", data, size);
  return 0;
}
