// libFuzzer target of the perftest importer: perftest's ib_write_bw / ib_read_bw / ib_send_bw output.
// See importer_fuzz.hpp for what counts as a finding.
#include "importer_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("perftest", data, size);
  return 0;
}
