// libFuzzer target of the nccl-tests importer: nccl-tests and rccl-tests output, printed or JSON (-J).
// See importer_fuzz.hpp for what counts as a finding.
#include "importer_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("nccl-tests", data, size);
  return 0;
}
