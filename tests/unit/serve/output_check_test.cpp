#include "serve/sweep/output_check.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "serve/common/prompt_identity.hpp"
#include "temp_dir.hpp"

namespace ironbench::serve {
namespace {

TEST(PromptIdentity, IsThePromptOrMessagesAlone) {
  const auto a = prompt_hash(R"({"model":"m","prompt":[1,2,3],"max_tokens":8})");
  EXPECT_EQ(a.size(), 16U);
  EXPECT_EQ(a, prompt_hash(R"({"prompt":[1,2,3],"model":"other","max_tokens":99,"temperature":0})"));
  EXPECT_NE(a, prompt_hash(R"({"prompt":[1,2,4]})"));
  EXPECT_NE(prompt_hash(R"({"prompt":"hello"})"), prompt_hash(R"({"messages":"hello"})"));
  // A message's keys in another order are the same prompt.
  EXPECT_EQ(prompt_hash(R"({"messages":[{"role":"user","content":"hi"}]})"),
            prompt_hash(R"({"messages":[{"content":"hi","role":"user"}]})"));
  EXPECT_EQ(prompt_hash(R"({"model":"m"})"), "");
  EXPECT_EQ(prompt_hash("not json"), "");
}

TEST(OutputCheck, FirstDifferenceCountsCharactersNotBytes) {
  EXPECT_FALSE(first_difference("same", "same", nullptr));
  EXPECT_EQ(first_difference("abcd", "abXd", nullptr), 2U);
  EXPECT_EQ(first_difference("abc", "abcdef", nullptr), 3U);  // one is a prefix of the other
  EXPECT_EQ(first_difference("", "x", nullptr), 0U);
  // "é" is two bytes: the difference is the third character, not the fourth byte.
  EXPECT_EQ(first_difference("\xC3\xA9"
                             "ab",
                             "\xC3\xA9"
                             "aX",
                             nullptr),
            2U);
  // Two characters sharing their first byte differ at that character.
  EXPECT_EQ(first_difference("x\xC3\xA9", "x\xC3\xA8", nullptr), 1U);
}

request_record completed(const std::string& hash, const std::string& text) {
  request_record r;
  r.success = true;
  r.prompt_hash = hash;
  r.generated_text = text;
  return r;
}

TEST(OutputCheck, MatchesByPromptNotOrderAndCountsEachOutcome) {
  output_reference reference{"ref.json", {{"a", " the of and"}, {"b", " to in is"}, {"c", " x y z"}}, 3};
  std::vector<request_record> records = {completed("c", " x y z"),       // identical, sent first
                                         completed("a", " the ~f and"),  // differs at character 5
                                         completed("b", " to in is"),    // identical
                                         completed("d", " new"),         // not in the reference
                                         completed("", " a later turn")};
  auto failed = completed("a", "");
  failed.success = false;
  records.push_back(failed);  // failed requests are not compared
  auto dropped = completed("b", "");
  dropped.text_not_kept = true;
  records.push_back(dropped);
  const auto check = check_outputs(records, reference, nullptr);
  EXPECT_EQ(check.at("compared"), 3);
  EXPECT_EQ(check.at("identical"), 2);
  EXPECT_DOUBLE_EQ(check.at("identical_share").get<double>(), 2.0 / 3.0);
  EXPECT_EQ(check.at("differing"), 1);
  EXPECT_EQ(check.at("without_reference"), 2);
  EXPECT_EQ(check.at("text_not_kept"), 1);
  EXPECT_EQ(check.at("first_difference_unit"), "characters");
  EXPECT_EQ(check.at("first_differences"), json::array({5}));
  EXPECT_EQ(check.at("median_first_difference"), 5.0);
  EXPECT_EQ(output_check_line(check),
            "outputs against ref.json: 66.7 % identical (2 of 3 compared, 2 without a reference, 1 not kept "
            "(--max-kept-text-bytes)); the 1 that differ first differ at character 5 (median; characters: no "
            "--tokenizer)\n");
  core::case_result c;
  add_output_check_metrics(check, c);
  ASSERT_EQ(c.metrics.size(), 4U);
  EXPECT_EQ(c.metrics[0].name, "output_identical_share");
  EXPECT_EQ(c.metrics[3].name, "median_first_difference");
  EXPECT_EQ(c.metrics[3].unit, "characters");
}

TEST(OutputCheck, TheMedianOfAnEvenCountIsTheMiddlePairsMean) {
  output_reference reference{"r", {{"a", "0123456789"}}, 1};
  std::vector<request_record> records = {completed("a", "0X"), completed("a", "0123X"), completed("a", "01234567X"),
                                         completed("a", "012X")};
  const auto check = check_outputs(records, reference, nullptr);
  EXPECT_EQ(check.at("median_first_difference"), 3.5);  // of 1, 3, 4, 8
  EXPECT_TRUE(check_outputs({}, reference, nullptr).at("identical_share").is_null());
  EXPECT_EQ(output_check_line(check_outputs({}, reference, nullptr)), "outputs against r: none compared\n");
}

std::string write(const testing::temp_dir& dir, const std::string& name, const std::string& text) {
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

std::string message_of(const std::string& path) {
  try {
    (void)load_output_reference(path);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(OutputCheck, ReadsAReferenceAndRefusesWhatCannotBeOne) {
  const testing::temp_dir dir;
  const auto good = write(dir, "good.json",
                          R"({"temperature": 0, "prompt_hashes": ["a", "b", "c", ""],
                              "generated_texts": [" one", "", " three", " turn"],
                              "errors": ["", "http_500: no", "", ""]})");
  const auto reference = load_output_reference(good);
  EXPECT_EQ(reference.requests, 4U);
  EXPECT_EQ(reference.texts.size(), 2U);  // the failed request and the one without a hash are no reference
  EXPECT_EQ(reference.texts.at("c"), " three");
  EXPECT_NE(message_of((dir / "missing.json").string()).find("No such file"), std::string::npos);
  EXPECT_EQ(message_of(write(dir, "bad.json", "{not json")),
            "--check-outputs: " + (dir / "bad.json").string() + " is not JSON");
  EXPECT_NE(message_of(write(dir, "plain.json", R"({"completed": 3})")).find("holds no generated texts"),
            std::string::npos);
  EXPECT_NE(message_of(write(dir, "vllm.json", R"({"generated_texts": ["a"]})")).find("no prompt identities"),
            std::string::npos);
  EXPECT_NE(
      message_of(write(dir, "hot.json", R"({"temperature": 0.7, "prompt_hashes": ["a"], "generated_texts": ["x"]})"))
          .find("was run at temperature 0.7, not greedy"),
      std::string::npos);
  EXPECT_NE(message_of(write(dir, "default.json",
                             R"({"temperature": null, "prompt_hashes": ["a"], "generated_texts": ["x"]})"))
                .find("the server's default temperature"),
            std::string::npos);
  EXPECT_NE(message_of(write(dir, "short.json", R"({"prompt_hashes": ["a"], "generated_texts": ["x", "y"]})"))
                .find("differ in length"),
            std::string::npos);
  // Texts past the reference's --max-kept-text-bytes were written empty: no reference.
  const auto not_kept = write(dir, "kept.json",
                              R"({"prompt_hashes": ["a", "b"], "generated_texts": ["", " b"],
                                  "generated_texts_not_kept": 1})");
  EXPECT_EQ(load_output_reference(not_kept).texts.count("a"), 0U);
}

TEST(OutputCheck, NeedsGreedySamplingAndSharedPrompts) {
  EXPECT_NO_THROW(require_greedy({{"temperature", 0}}));
  EXPECT_NO_THROW(require_greedy({{"temperature", 0.0}, {"top_p", 0.9}}));
  EXPECT_THROW(require_greedy(json::object()), usage_error);
  EXPECT_THROW(require_greedy({{"temperature", 0.6}}), usage_error);
  EXPECT_THROW(require_greedy({{"temperature", "0"}}), usage_error);
  const output_reference reference{"ref.json", {{"a", "x"}}, 1};
  EXPECT_NO_THROW(require_shared_prompts({"z", "a"}, reference));
  EXPECT_THROW(require_shared_prompts({"z", ""}, reference), usage_error);
}

}  // namespace
}  // namespace ironbench::serve
