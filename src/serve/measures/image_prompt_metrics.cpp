#include "serve/measures/image_prompt_metrics.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace ironbench::serve {

json image_prompt_metrics(const std::vector<request_record>& records) {
  int most = 0;
  std::int64_t images = 0, with_usage = 0, text = 0, server = 0, usage_images = 0;
  for (const auto& r : records) {
    most = std::max(most, r.images);
    if (!r.success || r.images <= 0) continue;
    images += r.images;
    if (!r.usage_prompt_tokens) continue;
    ++with_usage;
    usage_images += r.images;
    text += r.prompt_len;
    server += *r.usage_prompt_tokens;
  }
  if (most == 0) return json::object();
  json out = {{"images_per_request", most},
              {"total_images", images},
              {"image_requests_with_usage", with_usage},
              {"text_prompt_tokens", text},
              {"server_prompt_tokens", server}};
  if (with_usage > 0) {
    const auto extra = static_cast<double>(server - text);
    out["mean_extra_prompt_tokens_per_request"] = extra / static_cast<double>(with_usage);
    out["mean_extra_prompt_tokens_per_image"] = extra / static_cast<double>(usage_images);
  }
  return out;
}

std::vector<core::metric> image_case_metrics(const json& m) {
  if (!m.contains("mean_extra_prompt_tokens_per_image")) return {};
  return {{"mean_extra_prompt_tokens_per_image", m.at("mean_extra_prompt_tokens_per_image").get<double>(), "tokens",
           "server prompt tokens beyond the text's, per image"}};
}

void write_image_prompt_summary(std::ostream& out, const json& m) {
  if (!m.contains("images_per_request")) return;
  fmt::print(out, "{:-^50}\n", "Images");
  fmt::print(out, "{:<40}{:<10}\n", "Images per request / total:",
             fmt::format("{} / {}", m.at("images_per_request").get<int>(), m.at("total_images").get<std::int64_t>()));
  if (m.contains("mean_extra_prompt_tokens_per_image")) {
    fmt::print(out, "{:<40}{:<10}\n", "Server prompt tokens / text's:",
               fmt::format("{} / {}", m.at("server_prompt_tokens").get<std::int64_t>(),
                           m.at("text_prompt_tokens").get<std::int64_t>()));
    fmt::print(out, "{:<40}{:<10}\n", "Extra prompt tokens per image:",
               fmt::format("{:.2f}", m.at("mean_extra_prompt_tokens_per_image").get<double>()));
  } else {
    fmt::print(out, "{:<40}{:<10}\n", "Extra prompt tokens per image:", "- (the server reported no usage)");
  }
}

}  // namespace ironbench::serve
