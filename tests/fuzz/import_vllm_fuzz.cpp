// libFuzzer target of the vllm importer: vLLM's serving benchmark result JSON (one object, an array, JSON Lines).
// See importer_fuzz.hpp for what counts as a finding.
#include "importer_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("vllm", data, size);
  return 0;
}
