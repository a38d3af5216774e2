#include "report/interactivity_chart.hpp"

#include "schema/interactivity_curve.hpp"

namespace ironbench::report {

json interactivity_chart_data(const std::vector<results::comparison_side>& sides) {
  std::vector<std::vector<const core::case_result*>> cases(sides.size());
  std::vector<const core::case_result*> all;
  for (std::size_t s = 0; s < sides.size(); ++s) {
    for (const auto& run : sides[s].runs) {
      for (const auto& c : run.cases) cases[s].push_back(&c);
    }
    all.insert(all.end(), cases[s].begin(), cases[s].end());
  }
  const auto metric = schema::curve_throughput_metric(all);
  const auto as_json = [](const std::vector<schema::curve_point>& points) {
    json out = json::array();
    for (const auto& p : points) out.push_back({{"x", p.interactivity}, {"y", p.throughput}, {"case", p.index}});
    return out;
  };
  json per_side = json::array();
  bool any = false;
  for (const auto& side : cases) {
    const auto points = schema::serve_curve_points(side, metric);
    any |= !points.empty();
    per_side.push_back({{"points", as_json(points)}, {"frontier", as_json(schema::pareto_frontier(points))}});
  }
  if (!any) return nullptr;
  return {{"throughput", metric}, {"interactivity", schema::interactivity_key::median}, {"sides", per_side}};
}

}  // namespace ironbench::report
