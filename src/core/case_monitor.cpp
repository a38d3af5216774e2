#include "core/case_monitor.hpp"

#include <utility>

namespace ironbench::core {
namespace {

class combined_monitor final : public case_monitor {
 public:
  explicit combined_monitor(std::vector<std::unique_ptr<case_monitor>> parts) : parts_(std::move(parts)) {}

  void measured_between(const time_window& window) override {
    for (auto& part : parts_) part->measured_between(window);
  }

  case_observation finish() override {
    case_observation merged;
    for (auto& part : parts_) {
      auto seen = part->finish();
      if (merged.summary.is_null()) merged.summary = std::move(seen.summary);
      if (merged.series.is_null()) merged.series = std::move(seen.series);
      for (auto& m : seen.metrics) merged.metrics.push_back(std::move(m));
      if (!merged.load) merged.load = seen.load;
    }
    return merged;
  }

 private:
  std::vector<std::unique_ptr<case_monitor>> parts_;
};

}  // namespace

case_monitor_factory combine_monitors(std::vector<case_monitor_factory> factories) {
  std::erase_if(factories, [](const case_monitor_factory& f) { return !f; });
  return [factories = std::move(factories)](const device_info& device) -> std::unique_ptr<case_monitor> {
    std::vector<std::unique_ptr<case_monitor>> parts;
    for (const auto& factory : factories) {
      if (auto monitor = factory(device)) parts.push_back(std::move(monitor));
    }
    if (parts.empty()) return nullptr;
    if (parts.size() == 1) return std::move(parts.front());
    return std::make_unique<combined_monitor>(std::move(parts));
  };
}

}  // namespace ironbench::core
