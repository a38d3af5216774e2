// What images added to the prompts, as the server counted them: per point, the server's
// usage.prompt_tokens against the client's text-only count of each request that carried
// images (docs/serving-metrics.md). Per request the two counts are in the request records
// (usage_prompt_tokens beside prompt_len).
#pragma once

#include <ostream>
#include <vector>

#include "core/json.hpp"
#include "core/result.hpp"
#include "serve/measures/serving_metrics.hpp"

namespace ironbench::serve {

/// Empty when no request carried images. Otherwise: images_per_request (the most any request
/// carried), total_images (of completed requests), image_requests_with_usage (completed ones whose
/// server reported prompt tokens), text_prompt_tokens and server_prompt_tokens (totals over
/// those), mean_extra_prompt_tokens_per_request = mean of (usage - text count) and
/// mean_extra_prompt_tokens_per_image = the same sum / their images. The means are absent when
/// no server usage came back.
[[nodiscard]] json image_prompt_metrics(const std::vector<request_record>& records);

/// The case metric mean_extra_prompt_tokens_per_image, when the metrics have it.
[[nodiscard]] std::vector<core::metric> image_case_metrics(const json& metrics);

/// A console block of the same (nothing when there were no images).
void write_image_prompt_summary(std::ostream& out, const json& metrics);

}  // namespace ironbench::serve
