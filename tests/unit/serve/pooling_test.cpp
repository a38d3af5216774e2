// The endpoint table, the pooling requests' bodies and counts, the check of their replies, and
// serve-sim's deterministic answers and image token rule.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/json.hpp"
#include "serve/client/pooling_reply.hpp"
#include "serve/measures/image_prompt_metrics.hpp"
#include "serve/measures/pooling_metrics.hpp"
#include "serve/sim/sim_pooling.hpp"
#include "serve/workload/endpoint_kinds.hpp"
#include "serve/workload/pooling_requests.hpp"

namespace ironbench::serve {
namespace {

TEST(EndpointKinds, PathsAndBackendsChooseTheirRows) {
  EXPECT_EQ(endpoint_for("auto", "/v1/completions").kind, endpoint_kind::completions);
  EXPECT_EQ(endpoint_for("auto", "/v1/chat/completions").kind, endpoint_kind::chat);
  EXPECT_EQ(endpoint_for("auto", "/custom/chat").kind, endpoint_kind::chat);
  EXPECT_EQ(endpoint_for("auto", "/generate").kind, endpoint_kind::completions);
  EXPECT_EQ(endpoint_for("auto", "/v1/embeddings").kind, endpoint_kind::embeddings);
  EXPECT_EQ(endpoint_for("auto", "/rerank").kind, endpoint_kind::rerank);  // vLLM's form unless named
  EXPECT_EQ(endpoint_for("tei-rerank", "/rerank").kind, endpoint_kind::tei_rerank);
  EXPECT_EQ(endpoint_for("auto", "/score").kind, endpoint_kind::score);
  EXPECT_THROW((void)endpoint_for("tgi", "/v1/completions"), usage_error);
  EXPECT_TRUE(is_pooling(endpoint_kind::score));
  EXPECT_FALSE(is_pooling(endpoint_kind::chat));
}

TEST(PoolingRequests, BodiesHoldTheInputsAndCountEveryPair) {
  pooling_shape shape;
  shape.kind = endpoint_kind::rerank;
  shape.inputs = 3;
  shape.query_len = 4;
  shape.lengths.input_len = 5;
  body_settings body;
  body.model = "m";
  const auto requests = make_pooling_requests(shape, body, 2, 7, nullptr);
  ASSERT_EQ(requests.size(), 2U);
  const auto j = json::parse(requests[0].body);
  EXPECT_EQ(j.at("model"), "m");
  EXPECT_EQ(j.at("documents").size(), 3U);
  EXPECT_EQ(requests[0].items, 3U);
  EXPECT_EQ(requests[0].prompt_len, 3 * (4 + 5));
  // Deterministic from the seed.
  EXPECT_EQ(make_pooling_requests(shape, body, 2, 7, nullptr)[1].body, requests[1].body);
  EXPECT_NE(make_pooling_requests(shape, body, 2, 8, nullptr)[1].body, requests[1].body);
  // The server's count of the same body is the client's.
  const auto sim = read_sim_pooling_request(sim_pooling_kind::rerank, j);
  EXPECT_EQ(sim.prompt_tokens, requests[0].prompt_len);
  shape.kind = endpoint_kind::tei_rerank;
  EXPECT_TRUE(json::parse(make_pooling_requests(shape, body, 1, 7, nullptr)[0].body).contains("texts"));
  shape.kind = endpoint_kind::embeddings;
  const auto e = json::parse(make_pooling_requests(shape, body, 1, 7, nullptr)[0].body);
  EXPECT_EQ(e.at("input").size(), 3U);
  EXPECT_EQ(e.at("encoding_format"), "float");
  EXPECT_EQ(parse_inputs_per_request("1,8,32"), (std::vector<std::int64_t>{1, 8, 32}));
  EXPECT_THROW((void)parse_inputs_per_request("0"), usage_error);
  EXPECT_THROW((void)parse_inputs_per_request("2.5"), usage_error);
}

TEST(PoolingReply, EmbeddingsMustBeOnePerInputFiniteAndOfOneDimension) {
  const auto ok = read_pooling_reply(
      endpoint_kind::embeddings,
      R"({"data":[{"index":1,"embedding":[0.5,1]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":9}})", 2);
  EXPECT_TRUE(ok.error_class.empty()) << ok.error;
  EXPECT_EQ(ok.dimension, 2U);
  EXPECT_EQ(ok.prompt_tokens, 9);
  const auto short_reply =
      read_pooling_reply(endpoint_kind::embeddings, R"({"data":[{"index":0,"embedding":[1]}]})", 2);
  EXPECT_EQ(short_reply.error_class, "malformed");
  EXPECT_EQ(short_reply.error, "1 embeddings for 2 inputs");
  const auto ragged = read_pooling_reply(endpoint_kind::embeddings,
                                         R"({"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]})", 2);
  EXPECT_NE(ragged.error.find("dimensions"), std::string::npos) << ragged.error;
  const auto not_number =
      read_pooling_reply(endpoint_kind::embeddings, R"({"data":[{"index":0,"embedding":[1,null]}]})", 1);
  EXPECT_NE(not_number.error.find("not a finite number"), std::string::npos) << not_number.error;
  // A vector per token (llama.cpp's server for a model that pools nothing) is named as such.
  const auto per_token =
      read_pooling_reply(endpoint_kind::embeddings, R"({"data":[{"index":0,"embedding":[[1,2],[3,4]]}]})", 1);
  EXPECT_EQ(per_token.error_class, "malformed");
  EXPECT_EQ(per_token.error,
            "data[0].embedding is a list of vectors (one per token), not one pooled vector: the server pools nothing "
            "for this model");
  const auto twice = read_pooling_reply(endpoint_kind::embeddings,
                                        R"({"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]})", 2);
  EXPECT_NE(twice.error.find("twice"), std::string::npos) << twice.error;
  const auto error = read_pooling_reply(endpoint_kind::embeddings, R"({"error":{"message":"too long"}})", 1);
  EXPECT_EQ(error.error_class, "server_error");
  EXPECT_EQ(error.error, "too long");
  EXPECT_EQ(read_pooling_reply(endpoint_kind::embeddings, "<html>", 1).error_class, "malformed");
  // base64 float32s: 2 values of 1.0f and a NaN.
  EXPECT_TRUE(read_pooling_reply(endpoint_kind::embeddings, R"({"data":[{"index":0,"embedding":"AACAPwAAgD8="}]})", 1)
                  .error_class.empty());
  EXPECT_EQ(
      read_pooling_reply(endpoint_kind::embeddings, R"({"data":[{"index":0,"embedding":"AADAfw=="}]})", 1).error_class,
      "malformed");
  pooling_dimension dimension;
  EXPECT_TRUE(dimension.check(8).empty());
  EXPECT_TRUE(dimension.check(8).empty());
  EXPECT_FALSE(dimension.check(4).empty());
}

TEST(PoolingReply, RerankAndScoreResultsMustCoverEveryDocument) {
  const auto vllm = read_pooling_reply(
      endpoint_kind::rerank,
      R"({"results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":0.1}],"usage":{"total_tokens":30}})",
      2);
  EXPECT_TRUE(vllm.error_class.empty()) << vllm.error;
  EXPECT_EQ(vllm.prompt_tokens, 30);
  const auto tei = read_pooling_reply(endpoint_kind::tei_rerank, R"([{"index":0,"score":0.5}])", 1);
  EXPECT_TRUE(tei.error_class.empty()) << tei.error;
  EXPECT_FALSE(tei.prompt_tokens);
  EXPECT_NE(read_pooling_reply(endpoint_kind::rerank, R"([{"index":3,"score":0.5}])", 1).error.find("outside"),
            std::string::npos);
  EXPECT_EQ(read_pooling_reply(endpoint_kind::score, R"({"data":[{"index":0,"score":1}]})", 2).error,
            "1 scores for 2 documents");
  EXPECT_NE(read_pooling_reply(endpoint_kind::score, R"({"data":[{"index":0}]})", 1).error.find("no relevance_score"),
            std::string::npos);
}

TEST(SimPooling, AnswersAreDeterministicAndWellFormed) {
  const auto a = sim_embedding("hello world", 16), b = sim_embedding("hello world", 16);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, sim_embedding("hello there", 16));
  double norm = 0;
  for (double x : a) norm += x * x;
  EXPECT_NEAR(norm, 1.0, 1e-12);
  const double r = sim_relevance("q", "d");
  EXPECT_GE(r, 0.0);
  EXPECT_LT(r, 1.0);
  EXPECT_EQ(r, sim_relevance("q", "d"));
  sim_pooling_request request =
      read_sim_pooling_request(sim_pooling_kind::embeddings, json{{"input", {"a b", "c d e"}}});
  EXPECT_EQ(request.prompt_tokens, 5);
  const auto reply = read_pooling_reply(endpoint_kind::embeddings, sim_pooling_reply(request, "m", 1, 8, false), 2);
  EXPECT_TRUE(reply.error_class.empty()) << reply.error;
  EXPECT_EQ(reply.dimension, 8U);
  EXPECT_EQ(reply.prompt_tokens, 5);
  EXPECT_EQ(read_pooling_reply(endpoint_kind::embeddings, sim_pooling_reply(request, "m", 1, 8, true), 2).error,
            "1 embeddings for 2 inputs");
  const auto rerank = read_sim_pooling_request(sim_pooling_kind::rerank, json{{"query", "x y"}, {"texts", {"z"}}});
  EXPECT_TRUE(rerank.tei_form);
  EXPECT_EQ(rerank.prompt_tokens, 3);
  EXPECT_TRUE(json::parse(sim_pooling_reply(rerank, "m", 1, 8, false)).is_array());
  EXPECT_FALSE(read_sim_pooling_request(sim_pooling_kind::score, json{{"text_1", 1}}).error.empty());
}

TEST(PoolingMetrics, ThroughputsFromUsageElseTheClientsCountAndNoTokenLatencies) {
  std::vector<request_record> records(3);
  records[0].success = true;
  records[0].prompt_len = 10;
  records[0].usage_prompt_tokens = 12;
  records[0].e2el_s = 0.010;
  records[1].success = true;
  records[1].prompt_len = 10;
  records[1].e2el_s = 0.030;
  records[2].error_class = "malformed";
  const auto m = pooling_metrics(records, 2.0, metric_selection{}, 4, 64);
  EXPECT_EQ(m.at("total_input_tokens"), 22);
  EXPECT_EQ(m.at("input_tokens_from_usage"), 1);
  EXPECT_DOUBLE_EQ(m.at("request_throughput").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m.at("input_throughput").get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(m.at("inputs_throughput").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(m.at("mean_e2el_ms").get<double>(), 20.0);
  EXPECT_EQ(m.at("errors_by_class").at("malformed"), 1);
  EXPECT_FALSE(m.contains("median_ttft_ms"));
  EXPECT_FALSE(m.contains("output_throughput"));
}

TEST(ImagePromptMetrics, TheExcessOverTheTextCountPerImage) {
  EXPECT_TRUE(image_prompt_metrics(std::vector<request_record>(2)).empty());
  std::vector<request_record> records(3);
  for (auto& r : records) {
    r.success = true;
    r.images = 2;
    r.prompt_len = 10;
  }
  records[0].usage_prompt_tokens = 34;
  records[1].usage_prompt_tokens = 30;  // records[2]: no usage
  const auto m = image_prompt_metrics(records);
  EXPECT_EQ(m.at("total_images"), 6);
  EXPECT_EQ(m.at("image_requests_with_usage"), 2);
  EXPECT_DOUBLE_EQ(m.at("mean_extra_prompt_tokens_per_request").get<double>(), 22.0);
  EXPECT_DOUBLE_EQ(m.at("mean_extra_prompt_tokens_per_image").get<double>(), 11.0);
}

}  // namespace
}  // namespace ironbench::serve
