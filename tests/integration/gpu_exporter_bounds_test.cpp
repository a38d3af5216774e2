// ironbench serve --gpu-metrics-url against serve-sim's stand-in exporter made hostile: 31 759
// GPUs, 35 MB and 222 313 series at every scrape (issue 44's exporter). The point is measured
// as with a normal exporter; the exporter is refused at its first answer in one line, not asked
// again, and neither its GPUs nor an energy reach the result (docs/reliability.md, "GPU
// exporters").
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "process.hpp"
#include "sim_process.hpp"

namespace ironbench::testing {
namespace {

TEST(GpuExporterBounds, AnExporterOfThirtyMegabytesIsRefusedAndThePointStillMeasured) {
  sim_process sim({"--gpu-exporter", "dcgm", "--gpu-power-w", "300", "--gpu-exporter-gpus", "31759"});
  ASSERT_GT(sim.port(), 0);
  // (--max-lateness-ms: a loaded test host delays the client's sends; lateness is not judged here.
  // --metrics-interval 5s: a scrape may take 10 s, while a loaded host builds the 35 MB answer
  // before its header says how long it is.)
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--max-lateness-ms",
                                "1000",
                                "--gpu-telemetry",
                                "off",
                                "--base-url",
                                sim.url(),
                                "--num-prompts",
                                "20",
                                "--max-concurrency",
                                "4",
                                "--random-input-len",
                                "16",
                                "--random-output-len",
                                "8",
                                "--gpu-metrics-url",
                                sim.url() + "/gpu-metrics",
                                "--metrics-interval",
                                "5s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.out.size(), 1000000U) << "the result holds none of the exporter's GPUs";
  const auto run = json::parse(r.out);
  const auto& c = run.at("cases").at(0);
  EXPECT_EQ(c.at("status"), "valid");
  const auto point = json::parse(c.at("notes").at("result").get<std::string>());
  EXPECT_EQ(point.at("completed"), 20);
  const auto& g = point.at("remote_gpu_telemetry");
  EXPECT_TRUE(g.at("gpus").empty()) << g.dump().substr(0, 400);
  const auto error = g.at("error").get<std::string>();
  EXPECT_NE(error.find("refused: the answer passed the 16 MiB one scrape may be; not scraped again"), std::string::npos)
      << error;
  EXPECT_FALSE(point.contains("gpu_energy_j"));
  EXPECT_FALSE(point.contains("joules_per_output_token"));
  // One line on the console says so, naming the URL.
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < r.err.size();) {
    const auto end = r.err.find('\n', at);
    const auto line = r.err.substr(at, end - at);
    if (line.find("GPU exporter") != std::string::npos) lines.push_back(line);
    at = end == std::string::npos ? r.err.size() : end + 1;
  }
  ASSERT_EQ(lines.size(), 1U) << r.err;
  EXPECT_NE(lines[0].find(sim.url() + "/gpu-metrics"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace ironbench::testing
