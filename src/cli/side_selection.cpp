#include "cli/side_selection.hpp"

#include <fmt/format.h>

#include <iostream>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "results/results_store.hpp"
#include "results/run_selector.hpp"

namespace ironbench::cli {

std::vector<results::comparison_side> select_sides(const std::vector<std::string>& texts, const std::string& database) {
  std::unique_ptr<results::results_store> store;
  auto open_store = [&]() -> results::results_store& {
    if (!store) {
      store = std::make_unique<results::results_store>(results::database_path(database));
    }
    return *store;
  };
  std::vector<results::comparison_side> sides;
  for (const auto& text : texts) sides.push_back(results::select_side(text, open_store));
  return sides;
}

std::vector<results::price> parse_prices(const std::vector<std::string>& texts) {
  std::vector<results::price> prices;
  for (const auto& text : texts) prices.push_back(results::parse_price(text));
  return prices;
}

void write_text_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  core::write_output_file(path, text);
  std::cerr << "written: " << path << '\n';
}

}  // namespace ironbench::cli
