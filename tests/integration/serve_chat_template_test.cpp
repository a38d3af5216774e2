// ironbench serve counting chat prompts through the tokenizer's chat template, against
// serve-sim (real processes on loopback): a template whose rendering has a known number of
// tokens (one special token per message, one for the generation prompt) gives exactly that
// count for every turn of a conversation, the later turns made from the server's answers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/json.hpp"
#include "files.hpp"
#include "process.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

const std::string tokenizer_fixtures = IRONBENCH_TOKENIZER_FIXTURES;

json serve_conversation(const std::string& url, const std::string& tokenizer, const std::string& chat_template) {
  const auto r = run_ironbench({"serve",
                                "--no-save",
                                "--json",
                                "-",
                                "--base-url",
                                url,
                                "--endpoint",
                                "/v1/chat/completions",
                                "--dataset-name",
                                "conversation",
                                "--num-prompts",
                                "1",
                                "--conversation-turns",
                                "3",
                                "--conversation-user-len",
                                "10",
                                "--conversation-output-len",
                                "6",
                                "--progress-interval",
                                "0",
                                "--max-lateness-ms",
                                "1000",
                                "--tokenizer",
                                tokenizer,
                                "--chat-template",
                                chat_template});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

TEST(ServeChatTemplate, EveryTurnIsCountedThroughTheTemplate) {
  if (std::filesystem::exists(tokenizer_fixtures + "/SKIPPED")) {
    GTEST_SKIP() << read_file(tokenizer_fixtures + "/SKIPPED");
  }
  temp_dir dir;
  std::filesystem::copy_file(tokenizer_fixtures + "/llama3.tokenizer.json", dir.path() / "tokenizer.json");
  std::ofstream(dir.path() / "tokenizer_config.json")
      << R"({"bos_token": "<|begin_of_text|>", "chat_template": "{% for m in messages %}{{ bos_token }}{{ m['content'] }})"
         R"({% endfor %})"
         R"({% if add_generation_prompt %}<|end_of_text|>{% endif %}"})";
  sim_process sim({"--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto run = serve_conversation(sim.url(), dir.path().string(), "auto");
  EXPECT_EQ(run.at("settings").at("chat_template"), (dir.path() / "tokenizer_config.json").string());
  const auto point = json::parse(run.at("cases").at(0).at("notes").at("result").get<std::string>());
  ASSERT_EQ(point.at("turns").size(), 3U);

  // --chat-template none: the words of the history, as without a template (10, 26, 42)
  const auto plain = serve_conversation(sim.url(), dir.path().string(), "none");
  const auto plain_point = json::parse(plain.at("cases").at(0).at("notes").at("result").get<std::string>());
  EXPECT_EQ(plain.at("settings").at("chat_template"), "none");
  ASSERT_EQ(plain_point.at("turns").size(), 3U);
  EXPECT_EQ(plain_point.at("total_input_tokens"), 10 + 26 + 42);
  // The template adds, to the words of the 1, 3 and 5 messages (user, assistant, user, ...),
  // one special token per message and one for the generation prompt.
  for (int turn = 0; turn < 3; ++turn) {
    EXPECT_EQ(point.at("turns").at(turn).at("mean_prompt_len").get<double>(),
              plain_point.at("turns").at(turn).at("mean_prompt_len").get<double>() + 2.0 * turn + 2)
        << "turn " << turn;
  }
  EXPECT_EQ(point.at("total_input_tokens"), 10 + 26 + 42 + 2 + 4 + 6);
}

TEST(ServeChatTemplate, ATemplateThatFailsOnTheMessagesIsAUsageError) {
  if (std::filesystem::exists(tokenizer_fixtures + "/SKIPPED")) {
    GTEST_SKIP() << read_file(tokenizer_fixtures + "/SKIPPED");
  }
  temp_dir dir;
  std::filesystem::copy_file(tokenizer_fixtures + "/llama3.tokenizer.json", dir.path() / "tokenizer.json");
  std::ofstream(dir.path() / "strict.jinja") << "{{ raise_exception('only system prompts') }}";
  sim_process sim({"--decode-base-ms", "2"});
  ASSERT_GT(sim.port(), 0);
  const auto r = run_ironbench({"serve", "--no-save", "--base-url", sim.url(), "--endpoint", "/v1/chat/completions",
                                "--num-prompts", "2", "--tokenizer", dir.path().string(), "--chat-template",
                                (dir.path() / "strict.jinja").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("strict.jinja fails on the messages of request 1: line 1: the template raised an exception: "
                       "only system prompts"),
            std::string::npos)
      << r.err;
  const auto no_tokenizer =
      run_ironbench({"serve", "--no-save", "--base-url", sim.url(), "--endpoint", "/v1/chat/completions",
                     "--chat-template", (dir.path() / "strict.jinja").string()});
  EXPECT_EQ(no_tokenizer.exit_code, 2);
  EXPECT_NE(no_tokenizer.err.find("--chat-template needs --tokenizer"), std::string::npos) << no_tokenizer.err;
}

}  // namespace
}  // namespace ironbench::testing
