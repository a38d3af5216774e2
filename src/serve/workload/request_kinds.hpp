// What a sweep's kind of request (endpoint_kinds.hpp) and its images ask of the rest of the
// settings, and one point's requests built for it: pooling kinds get their own bodies
// (pooling_requests.hpp), chat prompts their images (synthetic_images.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "serve/sweep/serve_sweep.hpp"
#include "serve/workload/client_memory.hpp"
#include "serve/workload/dataset_table.hpp"

namespace ironbench::serve {

/// usage_error when the settings do not fit load.kind: a pooling kind takes the random dataset
/// (its --random-input-len is each text's length) and no --multi-turn, --slo metrics other
/// than e2el or --goodput; --inputs-per-request and --rerank-query-len apply only to pooling
/// kinds; images need the chat endpoint and fit in memory (`available`).
void check_request_kind(const sweep_settings& settings, const available_memory& available);

/// One point's `inputs.count` requests: a pooling kind's (load.inputs_per_request inputs each),
/// else the dataset's (images are added after their prompts are counted: add_synthetic_images).
[[nodiscard]] std::vector<prepared_request> build_point_requests(const sweep_settings& settings,
                                                                 const load_settings& load,
                                                                 const dataset_inputs& inputs);

}  // namespace ironbench::serve
