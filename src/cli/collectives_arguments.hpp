// The `collectives` command's options as typed (collectives_command.cpp adds them), shared with
// its --pairs form (pairwise_command.hpp), which reads the options that apply to the sweep.
#pragma once

#include <string>
#include <vector>

#include "comm/pairwise_analysis.hpp"
#include "report/run_outputs.hpp"

namespace ironbench::cli {

struct collectives_arguments {
  std::vector<std::string> collectives{"all_reduce"};
  std::string min_bytes = "8", max_bytes = "128M", step_bytes = "0";
  bool min_bytes_given = false, max_bytes_given = false;  ///< --minbytes, --maxbytes on the command line
  double step_factor = 2;
  int warmup_iterations = 5, iterations = 20, root = 0, check = 1, trials = 1, graph_launches = 0;
  int threads = 1, gpus_per_thread = 1;
  std::string datatypes = "fp32", ops = "sum", backend = "auto", timeout = "300s", inject_fault;
  bool quiet = false;
  report::output_options outputs;
  std::string pairs;  ///< --pairs nodes|ranks (pairwise_command.hpp); empty: nodes
  double pair_outlier_factor = comm::default_pair_outlier_factor;
};

}  // namespace ironbench::cli
