#include "serve/sweep/output_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/statistics.hpp"

namespace ironbench::serve {
namespace {

constexpr core::file_kind reference_kind{"--check-outputs reference", max_reference_bytes};

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

// The number of code points that begin in text[0, bytes).
std::size_t code_points(std::string_view text, std::size_t bytes) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bytes),
                                                [](char c) { return !is_continuation(c); }));
}

bool is_zero(const json& t) { return t.is_number() && t.get<double>() == 0; }

}  // namespace

output_reference load_output_reference(const std::string& path) {
  const auto text = core::read_bounded_file(path, reference_kind);
  const auto file = json::parse(text, nullptr, false);
  if (file.is_discarded()) throw usage_error(fmt::format("--check-outputs: {} is not JSON", path));
  if (!file.is_object() || !file.contains("generated_texts") || !file.at("generated_texts").is_array()) {
    throw usage_error(fmt::format(
        "--check-outputs: {} holds no generated texts (save the reference run with --save-result --save-detailed)",
        path));
  }
  const auto& texts = file.at("generated_texts");
  if (!file.contains("prompt_hashes") || !file.at("prompt_hashes").is_array()) {
    throw usage_error(fmt::format(
        "--check-outputs: {} records no prompt identities (prompt_hashes): save the reference with ironbench serve "
        "--save-result --save-detailed",
        path));
  }
  const auto& hashes = file.at("prompt_hashes");
  const json errors = file.value("errors", json::array());
  if (hashes.size() != texts.size() || (!errors.empty() && errors.size() != texts.size())) {
    throw usage_error(
        fmt::format("--check-outputs: {}: prompt_hashes, generated_texts and errors differ in length", path));
  }
  if (file.contains("temperature") && !is_zero(file.at("temperature"))) {
    throw usage_error(fmt::format(
        "--check-outputs: {} was run at {}, not greedy (temperature 0): its texts are one sample among many", path,
        file.at("temperature").is_null() ? std::string("the server's default temperature")
                                         : "temperature " + core::json_text(file.at("temperature"))));
  }
  // Texts past the reference's --max-kept-text-bytes were written empty: an empty text is then
  // no reference.
  const bool some_not_kept = file.value("generated_texts_not_kept", 0) > 0;
  output_reference reference{path, {}, texts.size()};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (!hashes[i].is_string() || !texts[i].is_string()) {
      throw usage_error(fmt::format("--check-outputs: {}: request {} has no prompt hash or text string", path, i));
    }
    const auto& hash = hashes[i].get_ref<const std::string&>();
    const bool failed = !errors.empty() && !(errors[i].is_string() && errors[i].get_ref<const std::string&>().empty());
    const auto& generated = texts[i].get_ref<const std::string&>();
    if (hash.empty() || failed || (some_not_kept && generated.empty())) continue;
    reference.texts.emplace(hash, generated);
  }
  if (reference.texts.empty()) {
    throw usage_error(
        fmt::format("--check-outputs: {} holds no completed request with its prompt hash and text", path));
  }
  return reference;
}

void require_greedy(const json& extra_body) {
  const json t = extra_body.is_object() ? extra_body.value("temperature", json()) : json();
  if (!is_zero(t)) {
    throw usage_error(fmt::format(
        "--check-outputs compares greedy completions: add --extra-body '{{\"temperature\": 0}}' (the requests "
        "now sample at {})",
        t.is_null() ? std::string("the server's default temperature") : "temperature " + core::json_text(t)));
  }
}

void require_shared_prompts(const std::vector<std::string>& prompt_hashes, const output_reference& reference) {
  const bool shared = std::any_of(prompt_hashes.begin(), prompt_hashes.end(),
                                  [&](const std::string& h) { return !h.empty() && reference.texts.count(h) > 0; });
  if (!shared) {
    throw usage_error(
        fmt::format("--check-outputs: none of this run's {} prompts is in {} ({} requests): it was made from another "
                    "dataset, --seed or lengths",
                    prompt_hashes.size(), reference.path, reference.requests));
  }
}

std::optional<std::size_t> first_difference(std::string_view a, std::string_view b, const bpe_tokenizer* tokenizer) {
  if (a == b) return std::nullopt;
  if (tokenizer != nullptr) {
    const auto x = tokenizer->encode(a), y = tokenizer->encode(b);
    const auto differ = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
    return static_cast<std::size_t>(differ.first - x.begin());
  }
  const auto differ = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const auto bytes = static_cast<std::size_t>(differ.first - a.begin());
  // The code point holding the first differing byte began before it when that byte continues one.
  const bool inside =
      (bytes < a.size() && is_continuation(a[bytes])) || (bytes < b.size() && is_continuation(b[bytes]));
  const auto points = code_points(a, bytes);
  return inside && points > 0 ? points - 1 : points;
}

json check_outputs(const std::vector<request_record>& records, const output_reference& reference,
                   const bpe_tokenizer* tokenizer) {
  std::size_t compared = 0, identical = 0, without = 0, not_kept = 0;
  json positions = json::array();
  std::vector<double> values;
  for (const auto& r : records) {
    if (!r.success) continue;
    const auto found = r.prompt_hash.empty() ? reference.texts.end() : reference.texts.find(r.prompt_hash);
    if (found == reference.texts.end()) {
      ++without;
      continue;
    }
    if (r.text_not_kept) {
      ++not_kept;
      continue;
    }
    ++compared;
    const auto at = first_difference(found->second, r.generated_text, tokenizer);
    if (!at) {
      ++identical;
      continue;
    }
    positions.push_back(*at);
    values.push_back(static_cast<double>(*at));
  }
  return {{"reference", reference.path},
          {"compared", compared},
          {"identical", identical},
          {"identical_share",
           compared > 0 ? json(static_cast<double>(identical) / static_cast<double>(compared)) : json(nullptr)},
          {"differing", compared - identical},
          {"without_reference", without},
          {"text_not_kept", not_kept},
          {"first_difference_unit", tokenizer != nullptr ? "tokens" : "characters"},
          {"median_first_difference", values.empty() ? json(nullptr) : json(core::percentile(values, 50))},
          {"first_differences", positions}};
}

std::string output_check_line(const json& check) {
  const auto compared = check.at("compared").get<std::size_t>();
  const auto without = check.at("without_reference").get<std::size_t>();
  const auto not_kept = check.at("text_not_kept").get<std::size_t>();
  std::string extra;
  if (without > 0) extra += fmt::format(", {} without a reference", without);
  if (not_kept > 0) extra += fmt::format(", {} not kept (--max-kept-text-bytes)", not_kept);
  const auto reference = check.at("reference").get<std::string>();
  if (compared == 0) return fmt::format("outputs against {}: none compared{}\n", reference, extra);
  auto line = fmt::format("outputs against {}: {:.1f} % identical ({} of {} compared{})", reference,
                          100 * check.at("identical_share").get<double>(), check.at("identical").get<std::size_t>(),
                          compared, extra);
  const auto differing = check.at("differing").get<std::size_t>();
  if (differing > 0) {
    const bool tokens = check.at("first_difference_unit") == "tokens";
    line += fmt::format("; the {} that differ first differ at {} {:g} (median{})", differing,
                        tokens ? "token" : "character", check.at("median_first_difference").get<double>(),
                        tokens ? "" : "; characters: no --tokenizer");
  }
  return line + "\n";
}

void add_output_check_metrics(const json& check, core::case_result& c) {
  const auto reference = "against " + check.at("reference").get<std::string>();
  if (!check.at("identical_share").is_null()) {
    c.metrics.push_back({"output_identical_share", check.at("identical_share").get<double>(), "share",
                         "completions identical to the reference's for the same prompt (greedy), " + reference});
  }
  c.metrics.push_back({"outputs_compared", check.at("compared").get<double>(), "requests", reference});
  c.metrics.push_back(
      {"outputs_without_reference", check.at("without_reference").get<double>(), "requests", "prompts " + reference});
  if (!check.at("median_first_difference").is_null()) {
    c.metrics.push_back({"median_first_difference", check.at("median_first_difference").get<double>(),
                         check.at("first_difference_unit").get<std::string>(),
                         "where differing completions first differ from the reference's (median)"});
  }
}

}  // namespace ironbench::serve
