#include <gtest/gtest.h>

#include <fstream>

#include "serve/client/send_queue.hpp"
#include "serve/common/text_units.hpp"
#include "serve/workload/conversation_dataset.hpp"
#include "temp_dir.hpp"

namespace ironbench::serve {
namespace {

prepared_request turn_of(std::size_t session, int turn, double think = 0) {
  prepared_request r;
  r.session = session;
  r.turn = turn;
  r.think_s = think;
  return r;
}

TEST(SendQueue, SingleRequestsFollowTheScheduleInOrder) {
  std::vector<prepared_request> list(3);
  std::vector<const prepared_request*> requests = {&list[0], &list[1], &list[2]};
  send_queue q(requests, {0.0, 0.5, 0.5});
  EXPECT_TRUE(q.has_due(0));
  EXPECT_EQ(q.pop(), 0U);
  EXPECT_FALSE(q.has_due(0.4));
  EXPECT_EQ(*q.next_due(), 0.5);
  EXPECT_EQ(q.pop(), 1U);
  EXPECT_EQ(q.pop(), 2U) << "ties go in order";
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.unsent(), 0U);
}

TEST(SendQueue, ALaterTurnIsDueItsThinkTimeAfterTheAnswerAndAFailureEndsTheConversation) {
  std::vector<prepared_request> list = {turn_of(7, 0), turn_of(7, 1, 0.25), turn_of(7, 2, 0.25), turn_of(9, 0),
                                        turn_of(9, 1)};
  std::vector<const prepared_request*> requests;
  for (const auto& r : list) requests.push_back(&r);
  send_queue q(requests, {1.0, 2.0});  // the two conversations start at 1 s and 2 s
  EXPECT_EQ(q.pop(), 0U);
  EXPECT_FALSE(q.previous_turn(0));
  EXPECT_EQ(*q.previous_turn(2), 1U);
  EXPECT_EQ(*q.next_due(), 2.0) << "turn 1 waits for turn 0's answer";
  EXPECT_TRUE(q.finished(0, true, 1.5).empty());
  EXPECT_DOUBLE_EQ(q.due(1), 1.75);
  EXPECT_EQ(q.pop(), 1U);
  EXPECT_EQ(q.pop(), 3U);
  EXPECT_FALSE(q.empty()) << "turns still wait for their predecessors";
  EXPECT_EQ(q.finished(3, false, 2.5), (std::vector<std::size_t>{4})) << "conversation 9 ends with its failure";
  EXPECT_TRUE(q.finished(1, true, 2.0).empty());
  EXPECT_EQ(q.pop(), 2U);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.unsent(), 1U);
}

TEST(Conversations, EachTurnCarriesTheHistoryWithTheServersAnswers) {
  conversation c{{"hello there", "and then"}, {8, 9}};
  body_settings chat;
  chat.model = "m";
  chat.api = openai_api::chat;
  const auto requests = conversation_requests({c}, chat, 0.5);
  ASSERT_EQ(requests.size(), 2U);
  EXPECT_EQ(requests[1].session, 0U);
  EXPECT_EQ(requests[1].turn, 1);
  EXPECT_EQ(requests[1].think_s, 0.5);
  const auto turn = requests[1].body_for_answers({"an answer of five words"});
  const auto body = json::parse(turn.body);
  EXPECT_EQ(body.at("messages"), json::parse(R"([{"role":"user","content":"hello there"},
    {"role":"assistant","content":"an answer of five words"},{"role":"user","content":"and then"}])"));
  EXPECT_EQ(body.at("max_completion_tokens"), 9);
  EXPECT_EQ(turn.prompt_len, 2 + 5 + 2);
  body_settings completions = chat;
  completions.api = openai_api::completions;
  const auto text = conversation_requests({c}, completions, 0)[1].body_for_answers({" yes"});
  EXPECT_EQ(json::parse(text.body).at("prompt"), "User: hello there\nAssistant: yes\nUser: and then\nAssistant:");
}

TEST(Conversations, ShareGptGivesEveryHumanTurnWithItsReplysLength) {
  testing::temp_dir dir;
  const auto path = (dir.path() / "sg.json").string();
  std::ofstream(path)
      << R"([{"conversations": [{"from": "human", "value": "a b c"}, {"from": "gpt", "value": "1 2 3 4 5 6"},
                                              {"from": "human", "value": "d e"}, {"from": "gpt", "value": "x"}]},
                            {"conversations": [{"from": "gpt", "value": "only a reply"}]}])";
  const auto c = read_sharegpt_conversations(path, 0, 3, 1, nullptr);
  ASSERT_EQ(c.size(), 3U) << "the one usable conversation, reused";
  EXPECT_EQ(c[0].user_turns, (std::vector<std::string>{"a b c", "d e"}));
  EXPECT_EQ(c[0].max_tokens, (std::vector<std::int64_t>{6, 4})) << "at least 4";
  EXPECT_EQ(read_sharegpt_conversations(path, 20, 1, 1, nullptr)[0].max_tokens, (std::vector<std::int64_t>{20, 20}));
  const auto synthetic = make_synthetic_conversations({3, 5, 7, 0}, 2, 1);
  ASSERT_EQ(synthetic.size(), 2U);
  EXPECT_EQ(synthetic[1].user_turns.size(), 3U);
  EXPECT_EQ(count_words(synthetic[1].user_turns[2]), 5);
}

}  // namespace
}  // namespace ironbench::serve
