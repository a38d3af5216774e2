#include "experiment/experiment_catalog.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "experiment/experiment_runner.hpp"
#include "report/text_table.hpp"
#include "results/results_store.hpp"

namespace ironbench::experiment {

std::vector<stored_experiment> stored_experiments(const std::string& database) {
  const results::results_store store(results::database_path(database));
  std::vector<stored_experiment> out;
  std::map<std::string, std::size_t> index;  // hash -> position in out
  std::map<std::string, std::set<std::string>> seen_points;
  for (const auto& run : store.list({})) {  // newest first
    const auto name = run.tags.find(experiment_tag);
    const auto hash = run.tags.find(experiment_hash_tag);
    if (name == run.tags.end() || hash == run.tags.end()) continue;
    auto [at, added] = index.emplace(hash->second, out.size());
    if (added) out.push_back({name->second, hash->second, run.host, run.start_time, run.start_time});
    auto& e = out[at->second];
    ++e.runs;
    e.first_start = run.start_time;
    const auto point = run.tags.find(experiment_point_tag);
    const auto outcome = run.tags.find(experiment_outcome_tag);
    if (point == run.tags.end() || !seen_points[hash->second].insert(point->second).second) continue;
    const auto state = outcome == run.tags.end() ? "" : outcome->second;
    if (state == "done")
      ++e.done;
    else if (state == "interrupted")
      ++e.interrupted;
    else
      ++e.failed;
  }
  return out;
}

void write_stored_points(const experiment_plan& plan, const std::string& database, bool force, std::ostream& out) {
  out << "\n";
  for (const auto& point : plan.points) {
    const auto id = stored_point(database, plan.hash, point.key);
    out << fmt::format(
        "point {}/{}: {}\n", point.index + 1, plan.points.size(),
        id != 0 && !force ? fmt::format("stored as run {}, would be skipped", id) : std::string("would run"));
  }
}

void write_experiment_list(const std::vector<stored_experiment>& experiments, const std::string& database,
                           std::ostream& out) {
  if (experiments.empty()) {
    out << fmt::format("no experiment stored in {}\n", results::database_path(database).string());
    return;
  }
  report::text_table table;
  for (const char* left : {"experiment", "hash", "host"}) table.add_column(left, report::text_table::align::left);
  for (const char* right : {"points done", "failed", "interrupted", "runs"}) table.add_column(right);
  table.add_column("last run", report::text_table::align::left);
  for (const auto& e : experiments) {
    table.add_row({e.name, e.hash, e.host, std::to_string(e.done), std::to_string(e.failed),
                   std::to_string(e.interrupted), std::to_string(e.runs), e.last_start});
  }
  table.render_text(out);
}

}  // namespace ironbench::experiment
