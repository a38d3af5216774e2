#include "results/run_selector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/error.hpp"
#include "core/result_json.hpp"
#include "core/text.hpp"
#include "results/baselines.hpp"
#include "results/results_store.hpp"

namespace ironbench::results {
namespace {

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

comparison_side select_side(const std::string& text, const std::function<results_store&()>& store) {
  comparison_side side;
  side.label = text;
  if (text.rfind("ref:", 0) == 0) {
    side.runs.push_back(baseline_run(text.substr(4)));
    return side;
  }
  if (std::filesystem::is_regular_file(text)) {
    side.runs.push_back(core::read_run_file(text));
    side.label = std::filesystem::path(text).filename().string();
    return side;
  }
  if (all_digits(text)) {
    side.runs.push_back(store().load(std::stoll(text)));
    side.label = "run " + text;
    return side;
  }
  if (text.find('=') != std::string::npos) {
    run_filter filter;
    filter.tags = parse_tags(split(text), "selector");
    auto& database = store();
    for (const auto& run : database.list(filter)) side.runs.push_back(database.load(run.id));
    if (side.runs.empty()) {
      throw usage_error(fmt::format("no stored run carries {} (see `ironbench results list`)", text));
    }
    return side;
  }
  throw usage_error(fmt::format("'{}' is not a run id, an existing result file, ref:NAME or KEY=VALUE", text));
}

}  // namespace ironbench::results
