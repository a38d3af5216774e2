// --lora-modules on both sides: the client's choice of adapter per request and its per-adapter
// metrics, and serve-sim's adapters (names, 404 body, step cost) and reasoning tokens.
#include "serve/workload/lora_adapters.hpp"

#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "serve/sim/sim_adapters.hpp"
#include "serve/sim/sim_engine.hpp"
#include "serve/sim/sim_reasoning.hpp"
#include "serve/workload/adapter_check.hpp"

namespace ironbench::serve {
namespace {

TEST(LoraModules, ParsesNamesAndWeights) {
  auto s = parse_lora_modules("a,b,c");
  ASSERT_EQ(s.adapters.size(), 3u);
  EXPECT_FALSE(s.weighted);
  EXPECT_EQ(s.adapters[2].name, "c");
  s = parse_lora_modules("sql:3,chat");
  EXPECT_TRUE(s.weighted);
  EXPECT_DOUBLE_EQ(s.adapters[0].weight, 3);
  EXPECT_DOUBLE_EQ(s.adapters[1].weight, 1);
  for (const char* bad : {"a,,b", "a,a", "a:0", "a:-1", "a:x", ",", "a:inf"}) {
    EXPECT_THROW((void)parse_lora_modules(bad), usage_error) << bad;
  }
}

TEST(LoraModules, TurnsAreExactAndWeightsFollowTheSeed) {
  const auto turns = assign_adapters(7, parse_lora_modules("a,b,c"), 1);
  EXPECT_EQ(turns, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2, 0}));
  const auto weighted = parse_lora_modules("a:3,b:1");
  const auto first = assign_adapters(4000, weighted, 7);
  EXPECT_EQ(first, assign_adapters(4000, weighted, 7));  // the seed decides
  EXPECT_NE(first, assign_adapters(4000, weighted, 8));
  std::size_t a = 0;
  for (auto k : first) a += k == 0 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(a) / 4000, 0.75, 0.03);
}

TEST(LoraModules, EachRequestNamesItsAdapterAndAConversationKeepsOne) {
  std::vector<prepared_request> requests(5);
  for (auto& r : requests) r.body = R"({"model":"base","prompt":[1,2],"max_tokens":4})";
  requests[1].session = requests[2].session = 9;  // one conversation, two turns
  requests[2].turn = 1;
  requests[2].body_for_answers = [](const std::vector<std::string>&) {
    return turn_request{R"({"model":"base","messages":[]})", 3};
  };
  apply_lora_adapters(requests, parse_lora_modules("x,y"), 0);
  EXPECT_EQ(requests[0].adapter, "x");
  EXPECT_EQ(requests[1].adapter, "y");
  EXPECT_EQ(requests[2].adapter, "y");
  EXPECT_EQ(requests[3].adapter, "x");
  EXPECT_EQ(requests[4].adapter, "y");
  EXPECT_EQ(json::parse(requests[3].body).at("model"), "x");
  EXPECT_EQ(json::parse(requests[3].body).at("prompt"), json::parse("[1,2]"));
  EXPECT_EQ(json::parse(requests[2].body_for_answers({}).body).at("model"), "y");
  // Without adapters nothing changes.
  std::vector<prepared_request> plain(1);
  plain[0].body = R"({"model":"base"})";
  apply_lora_adapters(plain, lora_selection{}, 0);
  EXPECT_EQ(plain[0].body, R"({"model":"base"})");
  EXPECT_EQ(plain[0].adapter, "");
}

TEST(LoraModules, PerAdapterMetricsAndTheFailingAdapterNamed) {
  std::vector<request_record> records;
  for (int i = 0; i < 4; ++i) {
    request_record r;
    r.adapter = i % 2 == 0 ? "a" : "b";
    r.success = r.adapter == "a";
    r.output_len = 11;
    r.ttft_s = 0.01;
    r.e2el_s = 0.01 + 10 * (r.adapter == "a" ? 0.002 : 0.004);
    if (!r.success) {
      r.error_class = "http_4xx";
      r.error = "HTTP 404: The model `b` does not exist.";
    }
    records.push_back(r);
  }
  const auto m = adapter_metrics(records, 2.0, parse_lora_modules("a,b"));
  EXPECT_EQ(m.at("a").at("requests"), 2);
  EXPECT_EQ(m.at("a").at("completed"), 2);
  EXPECT_NEAR(m.at("a").at("median_tpot_ms").get<double>(), 2, 1e-9);
  EXPECT_NEAR(m.at("a").at("output_throughput").get<double>(), 11, 1e-9);
  EXPECT_EQ(m.at("b").at("failed"), 2);
  EXPECT_EQ(m.at("b").at("first_error"), "http_4xx: HTTP 404: The model `b` does not exist.");
  const auto text = adapter_summary(m);
  EXPECT_NE(text.find("adapter a: 2 of 2 completed"), std::string::npos) << text;
  EXPECT_NE(text.find("adapter b: 0 of 2 completed; first error http_4xx: HTTP 404"), std::string::npos) << text;
}

TEST(SimAdapters, NamesCostsAndVllmsNotFoundBody) {
  const auto adapters = parse_sim_adapters("a,b", "1,3", "base");
  ASSERT_EQ(adapters.size(), 2u);
  EXPECT_DOUBLE_EQ(adapters[1].step_cost_ms, 3);
  EXPECT_DOUBLE_EQ(parse_sim_adapters("a,b", "2", "base")[0].step_cost_ms, 2);
  EXPECT_THROW((void)parse_sim_adapters("a,b", "1,2,3", "base"), usage_error);
  EXPECT_THROW((void)parse_sim_adapters("a,base", "0", "base"), usage_error);
  EXPECT_THROW((void)parse_sim_adapters("a,a", "0", "base"), usage_error);
  EXPECT_THROW((void)parse_sim_adapters("a", "-1", "base"), usage_error);
  EXPECT_EQ(sim_model_index("", "base", adapters), -1);
  EXPECT_EQ(sim_model_index("base", "base", adapters), -1);
  EXPECT_EQ(sim_model_index("b", "base", adapters), 1);
  EXPECT_FALSE(sim_model_index("c", "base", adapters).has_value());
  EXPECT_EQ(sim_unknown_model_error("c").at("error").at("message"), "The model `c` does not exist.");
  EXPECT_EQ(sim_unknown_model_error("c").at("error").at("code"), 404);
}

TEST(SimAdapters, AStepPaysEachRunningAdapterOnce) {
  sim_settings s;
  s.prefill_tokens_per_s = 1e12;  // prefill costs nothing
  s.decode_base_ms = 10;
  s.decode_per_seq_ms = 0;
  s.adapter_step_cost_ms = {1, 3};
  sim_engine engine(s);
  ASSERT_TRUE(engine.submit({1, 1, 4, 0}));
  ASSERT_TRUE(engine.submit({2, 1, 4, 0}));
  EXPECT_NEAR(engine.next_step()->duration_s, 0.011, 1e-9);  // adapter 0 once, for two sequences
  ASSERT_TRUE(engine.submit({3, 1, 4, 1}));
  ASSERT_TRUE(engine.submit({4, 1, 4, -1}));  // the base model costs nothing more
  EXPECT_NEAR(engine.next_step()->duration_s, 0.014, 1e-9);
}

TEST(SimReasoning, TheFirstTokensAreReasoningInTheStylesForm) {
  sim_reasoning_settings s;
  s.tokens = 3;
  EXPECT_EQ(sim_reasoning_tokens(s, 2), 2);
  EXPECT_EQ(sim_reasoning_tokens(s, 10), 3);
  EXPECT_EQ(sim_token(s, 3, 0, "w", true).field, "reasoning_content");
  EXPECT_EQ(sim_token(s, 3, 3, "w", true).field, "content");
  s.style = sim_reasoning_style::reasoning;
  EXPECT_EQ(sim_token(s, 3, 2, "w", true).field, "reasoning");
  s.style = sim_reasoning_style::think_tags;
  EXPECT_EQ(sim_token(s, 3, 0, "w", true).text, "<think>");
  EXPECT_EQ(sim_token(s, 3, 1, "w", true).text, "w");
  EXPECT_EQ(sim_token(s, 3, 2, "w", true).text, "</think>");
  EXPECT_EQ(sim_token(s, 3, 2, "w", true).field, "content");
  // Completions carry the tags whatever the style.
  s.style = sim_reasoning_style::reasoning_content;
  EXPECT_EQ(sim_token(s, 3, 0, "w", false).text, "<think>");
  EXPECT_EQ(sim_token(s, 3, 0, "w", false).field, "content");
  EXPECT_EQ(sim_reasoning_style_from_string("think-tags"), sim_reasoning_style::think_tags);
  EXPECT_THROW((void)sim_reasoning_style_from_string("tags"), usage_error);
}

TEST(AdapterCheck, TheAdaptersAModelListDoesNotNameInTheOrderGiven) {
  const auto selection = parse_lora_modules("sql,chat:2,base");
  const std::string list =
      R"({"object":"list","data":[{"id":"base","object":"model"},{"id":"chat","parent":"base"},{"object":"model"}]})";
  EXPECT_EQ(adapters_not_listed(list, selection), (std::vector<std::string>{"sql"}));
  EXPECT_EQ(adapters_not_listed(R"({"data":[]})", selection), (std::vector<std::string>{"sql", "chat", "base"}));
  EXPECT_EQ(adapters_not_listed(R"({"data":[{"id":"sql"},{"id":"chat"},{"id":"base"}]})", selection),
            std::vector<std::string>{});
  // Not a model list: not judged.
  EXPECT_FALSE(adapters_not_listed("<html>", selection).has_value());
  EXPECT_FALSE(adapters_not_listed(R"({"data":{}})", selection).has_value());
  EXPECT_FALSE(adapters_not_listed(R"([1,2])", selection).has_value());
}

TEST(AdapterCheck, LlamaCppAdaptersAreNamedByIdPathOrFileName) {
  const std::string list =
      R"([{"id":0,"path":"/models/sql.gguf","scale":0.0},{"id":1,"path":"chat-lora.gguf","scale":1.0}])";
  EXPECT_EQ(adapter_ids(list, parse_lora_modules("sql,chat-lora.gguf,0,/models/sql.gguf,1")),
            (std::vector<int>{0, 1, 0, 0, 1}));
  EXPECT_EQ(adapter_ids(list, parse_lora_modules("sql,tone,2")), (std::vector<int>{0, -1, -1}));
  EXPECT_EQ(adapter_ids("[]", parse_lora_modules("sql")), (std::vector<int>{-1})) << "a server without adapters";
  // vLLM's 404 body, a model list, an entry without an id: not llama.cpp's list.
  EXPECT_FALSE(adapter_ids(R"({"detail":"Not Found"})", parse_lora_modules("sql")).has_value());
  EXPECT_FALSE(adapter_ids(R"({"data":[{"id":"sql"}]})", parse_lora_modules("sql")).has_value());
  EXPECT_FALSE(adapter_ids(R"([{"path":"sql.gguf"}])", parse_lora_modules("sql")).has_value());
}

TEST(LoraModules, TheLoraFieldNamesTheAdapterByIdAndKeepsTheModel) {
  auto selection = parse_lora_modules("sql,chat");
  set_lora_route(selection, "lora-field", true);
  EXPECT_EQ(selection.route, lora_route::lora_field);
  selection.adapters[0].server_id = 3;  // as GET /lora-adapters listed them
  selection.adapters[1].server_id = 0;
  std::vector<prepared_request> requests(2);
  for (auto& r : requests) r.body = R"({"model":"base","prompt":"p"})";
  requests[1].body_for_answers = [](const std::vector<std::string>&) {
    return turn_request{R"({"model":"base","messages":[]})", 1};
  };
  apply_lora_adapters(requests, selection, 0);
  const auto first = json::parse(requests[0].body);
  EXPECT_EQ(first.at("model"), "base");
  EXPECT_EQ(first.at("lora"), json::parse(R"([{"id":3,"scale":1.0}])"));
  EXPECT_EQ(requests[0].adapter, "sql");
  EXPECT_EQ(json::parse(requests[1].body).at("lora").at(0).at("id"), 0);
  EXPECT_EQ(json::parse(requests[1].body_for_answers({}).body).at("lora").at(0).at("id"), 0) << "later turns too";
  // By model name (the default for vLLM): no lora field.
  auto by_name = parse_lora_modules("sql");
  set_lora_route(by_name, "model", true);
  std::vector<prepared_request> plain(1);
  plain[0].body = R"({"model":"base","prompt":"p"})";
  apply_lora_adapters(plain, by_name, 0);
  EXPECT_EQ(json::parse(plain[0].body).at("model"), "sql");
  EXPECT_FALSE(json::parse(plain[0].body).contains("lora"));
}

TEST(LoraModules, TheRouteIsParsedAndUncheckedLoraFieldTakesIds) {
  auto selection = parse_lora_modules("0,2");
  set_lora_route(selection, "lora-field", false);
  EXPECT_EQ(selection.adapters[0].server_id, 0);
  EXPECT_EQ(selection.adapters[1].server_id, 2);
  auto named = parse_lora_modules("sql");
  EXPECT_THROW(set_lora_route(named, "lora-field", false), usage_error) << "no GET to find sql's id";
  EXPECT_THROW(set_lora_route(named, "field", true), usage_error);
  set_lora_route(named, "auto", false);
  EXPECT_EQ(named.route, lora_route::model_name) << "unchecked, auto asks nothing";
  set_lora_route(named, "auto", true);
  EXPECT_EQ(named.route, lora_route::automatic);
}

}  // namespace
}  // namespace ironbench::serve
