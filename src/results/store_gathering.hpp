// `ironbench results gather SOURCE...`: runs written elsewhere (run_gathering.hpp) stored in one
// results store, opened for writing on the first run to store, and the lines that report it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "results/run_gathering.hpp"
#include "results/store_location.hpp"

namespace ironbench::results {

/// What gather_into did.
struct gather_outcome {
  import_summary summary;
  std::string store;  ///< the target's path once opened, else its location as given (display())
};

/// import_sources from `paths` into the store at `target`, opened on the first run to store, so
/// that a refused source alone creates nothing; `on_refused` is told of each refusal as it
/// happens.
[[nodiscard]] gather_outcome gather_into(const store_location& target, const std::vector<std::filesystem::path>& paths,
                                         const std::function<void(const std::string&)>& on_refused = {});

/// The lines that report `outcome`: "N added, M already present in STORE", then the JSON files
/// skipped (not ironbench runs) and each folder entry passed over.
[[nodiscard]] std::vector<std::string> gather_lines(const gather_outcome& outcome);

}  // namespace ironbench::results
