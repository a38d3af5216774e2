#include "serve/sim/sim_adapters.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/units.hpp"

namespace ironbench::serve {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  std::size_t at = 0;
  while (true) {
    const auto comma = text.find(',', at);
    items.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return items;
    at = comma + 1;
  }
}

}  // namespace

std::vector<sim_adapter> parse_sim_adapters(const std::string& modules, const std::string& costs,
                                            const std::string& base_model) {
  std::vector<sim_adapter> adapters;
  if (modules.empty()) return adapters;
  std::set<std::string> seen;
  for (auto& name : split_commas(modules)) {
    if (name.empty()) throw usage_error(fmt::format("--lora-modules takes names (a,b,c), not '{}'", modules));
    if (name == base_model) throw usage_error(fmt::format("--lora-modules: '{}' is the base model's name", name));
    if (!seen.insert(name).second) throw usage_error(fmt::format("--lora-modules names '{}' twice", name));
    adapters.push_back({std::move(name), 0});
  }
  const auto items = split_commas(costs.empty() ? "0" : costs);
  if (items.size() != 1 && items.size() != adapters.size()) {
    throw usage_error(fmt::format("--lora-step-cost-ms takes one cost or one per adapter ({}), not {}", adapters.size(),
                                  items.size()));
  }
  for (std::size_t i = 0; i < adapters.size(); ++i) {
    const auto& item = items.size() == 1 ? items[0] : items[i];
    const double ms = parse_number(item, "--lora-step-cost-ms");
    if (!(ms >= 0) || !std::isfinite(ms)) {
      throw usage_error(fmt::format("--lora-step-cost-ms must not be negative, not '{}'", item));
    }
    adapters[i].step_cost_ms = ms;
  }
  return adapters;
}

std::optional<int> sim_model_index(const std::string& requested, const std::string& base_model,
                                   const std::vector<sim_adapter>& adapters) {
  if (requested.empty() || requested == base_model) return -1;
  for (std::size_t i = 0; i < adapters.size(); ++i) {
    if (adapters[i].name == requested) return static_cast<int>(i);
  }
  return std::nullopt;
}

json sim_unknown_model_error(const std::string& requested) {
  return {{"error",
           {{"message", fmt::format("The model `{}` does not exist.", requested)},
            {"type", "NotFoundError"},
            {"param", "model"},
            {"code", 404}}}};
}

}  // namespace ironbench::serve
