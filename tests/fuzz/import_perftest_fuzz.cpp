// libFuzzer target of the perftest importer: perftest's ib_write_bw / ib_read_bw / ib_send_bw output.
// See importer_fuzz.hpp for what counts as a finding. A valid case's average bandwidth must be
// its message rate x its message size, as perftest derives it.
#include "importer_fuzz.hpp"

namespace {

void check_message_rate(const ironbench::core::case_result& c) {
  using ironbench::fuzz::metric_of;
  const auto average = metric_of(c, "bw_average"), rate = metric_of(c, "msg_rate");
  if (!average || !rate || !c.params.contains("size")) return;
  const double bytes = static_cast<double>(c.params.integer("size"));
  // Gb/s of Mpps x bytes; looser than the importer (1 %, 0.01 of the file's unit, the rate's 6 decimals).
  const double implied = *rate * 1e6 * bytes * 8 / 1e9;
  if (!ironbench::fuzz::near(*average, implied, 0.03, 0.03 + 1.5 * bytes * 8 / 1e9)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ironbench::fuzz::import_one_input("perftest", data, size, check_message_rate);
  return 0;
}
