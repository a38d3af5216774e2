// --check-outputs: whether a run's greedy completions are the ones a reference run gave for
// the same prompts, so that a configuration that is fast because it changed the answers (a
// quantisation or kernel bug) shows it beside its throughput. Requests are matched by prompt
// identity (prompt_identity.hpp), not by order; each completed request's text is compared
// with the reference's for its prompt, and where they differ the first differing position is
// found (in tokens of --tokenizer, else in characters).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/measures/serving_metrics.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace ironbench::serve {

/// A reference run's texts, by prompt identity.
struct output_reference {
  std::string path;
  /// Prompt hash -> the text the reference generated for it (its first successful request
  /// with that prompt whose text was kept).
  std::unordered_map<std::string, std::string> texts;
  std::size_t requests = 0;  ///< requests in the file
};

/// The most bytes a reference result file may hold (read whole).
inline constexpr std::uint64_t max_reference_bytes = std::uint64_t{4} << 30;

/// Reads a result file written by `serve --save-result --save-detailed` (generated_texts,
/// prompt_hashes, errors, temperature). usage_error in one line when it is missing or not a
/// regular file, not JSON, holds no texts or no prompt identities (another tool's file, or one
/// saved without --save-detailed), or records a temperature other than 0.
[[nodiscard]] output_reference load_output_reference(const std::string& path);

/// usage_error unless `extra_body` (--extra-body) sets "temperature" to 0: completions are
/// comparable only when sampling is greedy (the server's default temperature is not).
void require_greedy(const json& extra_body);

/// usage_error when not one of `prompt_hashes` (a point's prompts) is in the reference: the
/// reference was made from another dataset, seed or lengths.
void require_shared_prompts(const std::vector<std::string>& prompt_hashes, const output_reference& reference);

/// The first position at which `a` and `b` differ: in tokens of `tokenizer` when given, else
/// in characters (Unicode code points); the shorter one's length when it is a prefix of the
/// other. Equal texts: nullopt.
[[nodiscard]] std::optional<std::size_t> first_difference(std::string_view a, std::string_view b,
                                                          const bpe_tokenizer* tokenizer);

/// A point's check against `reference`: {"reference", "compared", "identical",
/// "identical_share" (null when none was compared), "differing", "without_reference",
/// "text_not_kept", "first_difference_unit" ("tokens" or "characters"),
/// "median_first_difference" (null when none differs), "first_differences" (each differing
/// request's position, in send order)}. Completed requests only; a request without a prompt
/// identity (a later turn of a conversation) or whose prompt the reference lacks counts as
/// without a reference.
[[nodiscard]] json check_outputs(const std::vector<request_record>& records, const output_reference& reference,
                                 const bpe_tokenizer* tokenizer);

/// The console line of a check: "outputs against REF: 75.0 % identical (6 of 8 compared, 4
/// without a reference); the 2 that differ first differ at token 3 (median)".
[[nodiscard]] std::string output_check_line(const json& check);

/// The check's metrics on a point's case: output_identical_share, outputs_compared,
/// outputs_without_reference, median_first_difference.
void add_output_check_metrics(const json& check, core::case_result& c);

}  // namespace ironbench::serve
