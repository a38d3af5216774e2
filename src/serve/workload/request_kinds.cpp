#include "serve/workload/request_kinds.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/units.hpp"
#include "serve/measures/latency_metrics.hpp"

namespace ironbench::serve {

void check_request_kind(const sweep_settings& s, const available_memory& available) {
  const auto kind = s.load.kind;
  check_image_settings(s.images);
  if (!is_pooling(kind)) {
    if (s.pooling.inputs_per_request != std::vector<std::int64_t>{1}) {
      throw usage_error(
          "--inputs-per-request applies to embeddings, rerank and score (--backend or --endpoint /v1/embeddings, "
          "/v1/rerank, /score)");
    }
    if (s.images.per_request > 0 && kind != endpoint_kind::chat) {
      throw usage_error("--images-per-request needs the chat endpoint (--endpoint /v1/chat/completions)");
    }
    if (s.images.per_request > 0 && (s.datasets.multi_turn || s.dataset_name == "conversation")) {
      throw usage_error("--images-per-request does not apply to conversations (their later turns are built as sent)");
    }
    if (s.images.per_request > 0 && available.bytes) {
      const auto requests = static_cast<std::uint64_t>(s.num_prompts + std::max(0, s.num_warmups));
      const auto need = image_bytes_estimate(s.images, requests);
      if (need > *available.bytes) {
        throw usage_error(fmt::format(
            "--images-per-request {} of {}x{}: {} requests' images need about {} of memory, but {} is {}",
            s.images.per_request, s.images.width, s.images.height, requests, format_bytes(static_cast<double>(need)),
            available.source, format_bytes(static_cast<double>(*available.bytes))));
      }
    }
    return;
  }
  const auto& name = endpoint_of(kind).backend;
  if (s.images.per_request > 0) throw usage_error(fmt::format("--images-per-request does not apply to {}", name));
  if (s.dataset_name != "random") {
    throw usage_error(fmt::format("{} takes --dataset-name random (each input is --random-input-len words), not '{}'",
                                  name, s.dataset_name));
  }
  // The objectives such replies can meet are those of the metrics that need no tokens.
  std::string without_tokens, with_tokens;
  bool tokens_objective = false;
  for (const auto& metric : latency_metric_table()) {
    if (!metric.goodput) continue;
    auto& list = metric.needs_tokens ? with_tokens : without_tokens;
    list += fmt::format("{}{}",
                        list.empty()          ? ""
                        : metric.needs_tokens ? " or "
                                              : ", ",
                        metric.needs_tokens ? metric.label : metric.name);
    tokens_objective = tokens_objective || (metric.needs_tokens && s.slo.*metric.goodput);
  }
  if (tokens_objective) {
    throw usage_error(fmt::format("--goodput: {} replies have no {} ({} applies)", name, with_tokens, without_tokens));
  }
  for (const auto& limit : s.objectives.limits) {
    if (const auto* metric = find_latency_metric(limit.metric); metric && metric->needs_tokens) {
      throw usage_error(fmt::format("--slo: {} replies have no {} (e2el applies)", name, limit.metric));
    }
  }
  if (s.limit.max_ms > 0) throw usage_error(fmt::format("--max-itl-ms: {} replies have no inter-token latency", name));
  if (s.pooling.query_len < 1) throw usage_error("--rerank-query-len must be at least 1");
}

std::vector<prepared_request> build_point_requests(const sweep_settings& s, const load_settings& load,
                                                   const dataset_inputs& inputs) {
  if (is_pooling(load.kind)) {
    pooling_shape shape;
    shape.kind = load.kind;
    shape.inputs = load.inputs_per_request;
    shape.query_len = s.pooling.query_len;
    shape.lengths = s.datasets.random;
    return make_pooling_requests(shape, s.body, inputs.count, inputs.seed, inputs.tokenizer);
  }
  return dataset_named(s.dataset_name).build(inputs);
}

}  // namespace ironbench::serve
