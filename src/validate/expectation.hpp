// What a validation check expects of a measured case: a value with its unit, where the value
// came from, and how it was scaled to this device.
#pragma once

#include <string>

namespace ironbench::validate {

struct expectation {
  double value = 0;
  std::string unit;    ///< "TFLOP/s", "GB/s"
  std::string source;  ///< the publication, datasheet or reference run, and any derating
  std::string origin;  ///< "table" (data/expected_values.json), "ref:NAME", "tag:K=V"
};

}  // namespace ironbench::validate
