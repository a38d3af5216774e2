#include "results/store_gathering.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "results/results_store.hpp"

namespace ironbench::results {

gather_outcome gather_into(const store_location& target, const std::vector<std::filesystem::path>& paths,
                           const std::function<void(const std::string&)>& on_refused) {
  // Each run is stored as soon as it is read (one run in memory at a time).
  std::unique_ptr<results_store> store;
  gather_outcome outcome;
  outcome.summary = import_sources(
      paths,
      [&]() -> results_store& {
        if (!store) store = std::make_unique<results_store>(target, store_access::write);
        return *store;
      },
      on_refused);
  outcome.store = store ? store->path().string() : target.display();
  return outcome;
}

std::vector<std::string> gather_lines(const gather_outcome& outcome) {
  const auto& s = outcome.summary;
  std::vector<std::string> lines{
      fmt::format("{} added, {} already present in {}", s.counts.added, s.counts.present, outcome.store)};
  if (!s.skipped.empty()) {
    lines.push_back(fmt::format("skipped {} JSON file(s) that are not ironbench runs: {}", s.skipped.size(),
                                fmt::join(s.skipped, ",")));
  }
  for (const auto& note : s.passed_over) lines.push_back("passed over " + note);
  return lines;
}

}  // namespace ironbench::results
