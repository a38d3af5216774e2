#include "cli/rank_run.hpp"

#include "cli/build_description.hpp"
#include "cli/run_outputs.hpp"

namespace ironbench::cli {

core::run_result rank0_run(const invocation& call, std::chrono::system_clock::time_point start, const live_host& host,
                           const std::vector<std::string>& rank_descriptions, const core::device_info& measured) {
  core::run_result run;
  run.tool = build_description();
  run.argv = call.argv;
  run.start_time = utc_time(start, "%Y-%m-%dT%H:%M:%SZ");
  run.end_time = utc_time(std::chrono::system_clock::now(), "%Y-%m-%dT%H:%M:%SZ");
  run.host = host_json(host.fingerprint);
  run.host["ranks"] = json::array();
  for (const auto& text : rank_descriptions) run.host["ranks"].push_back(json::parse(text));
  run.devices = {measured};
  return run;
}

}  // namespace ironbench::cli
