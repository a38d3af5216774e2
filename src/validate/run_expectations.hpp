// Expectations from reference runs instead of the table (`--expect`): a published baseline
// (ref:NAME) or the stored runs of a golden node (tag:fleet=golden), so that a fleet judges
// each node against its own reference: the median of the matching cases times a factor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "validate/expectation.hpp"

namespace ironbench::validate {

class run_expectations {
 public:
  /// `label` names the reference ("ref:h100-gemm-cited", "tag:fleet=golden").
  run_expectations(std::vector<core::run_result> runs, std::string label, double factor);

  /// The median of the reference cases that match `measured` (the same benchmark, a baseline's
  /// gemm_summary standing for gemm; every parameter both have equal; the same device id for
  /// stored runs) times the factor; nullopt when none matches or has the metric.
  [[nodiscard]] std::optional<expectation> find(const core::case_result& measured) const;

  [[nodiscard]] std::size_t runs() const { return runs_.size(); }

 private:
  std::vector<core::run_result> runs_;
  std::string label_;
  double factor_;
};

/// The reference named by `text`: "ref:NAME" (an embedded baseline) or "tag:K=V[,K=V...]"
/// (every stored run of `database` carrying those tags). usage_error (one line) for any other
/// form or when nothing matches.
[[nodiscard]] run_expectations load_run_expectations(const std::string& text, double factor,
                                                     const std::string& database);

}  // namespace ironbench::validate
