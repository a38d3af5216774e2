// --check-outputs against serve-sim (real processes on loopback): a reference run on a clean
// serve-sim, then a run on one whose wrong-output fault changes one output token of every
// fourth request. serve-sim's text follows from the prompt, so the truth is known: which
// requests differ, and where (the changed token's first character, or the token itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/json.hpp"
#include "process.hpp"
#include "run_json.hpp"
#include "sim_process.hpp"
#include "temp_dir.hpp"

namespace ironbench::testing {
namespace {

const std::vector<std::string> greedy = {"--extra-body", R"({"temperature": 0})"};

std::vector<std::string> serve_args(const std::string& url, const std::string& prompts) {
  return {"serve",         "--no-save", "--progress-interval", "0",  "--max-lateness-ms",   "1000", "--base-url", url,
          "--num-prompts", prompts,     "--random-input-len",  "16", "--random-output-len", "8"};
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The reference: 12 prompts on a clean serve-sim, saved with their texts.
std::filesystem::path make_reference(const temp_dir& dir, const std::vector<std::string>& extra = {}) {
  sim_process clean({"--decode-base-ms", "1"});
  EXPECT_GT(clean.port(), 0);
  const auto r = run_ironbench(serve_args(clean.url(), "12") + greedy + extra +
                               std::vector<std::string>{"--save-result", "--save-detailed", "--result-dir", dir.str(),
                                                        "--result-filename", "reference.json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir / "reference.json";
}

// Where word `n` (0: the first) of serve-sim's text begins: each word starts with a space.
std::size_t word_start(const std::string& text, std::size_t n) {
  std::size_t at = 0;
  for (std::size_t k = 0; k <= n; ++k) at = text.find(' ', k == 0 ? 0 : at + 1);
  return at;
}

TEST(ServeOutputCheck, ShareIdenticalAndFirstDifferenceAreServeSimsTruth) {
  const temp_dir dir;
  const auto reference_path = make_reference(dir);
  const auto reference = read_json(reference_path.string());
  ASSERT_EQ(reference.at("temperature"), 0);
  ASSERT_EQ(reference.at("prompt_hashes").size(), 12U);
  // 16 requests one at a time: the 4th, 8th, 12th and 16th get token 3 changed; the 16th's
  // prompt (and the 13th to 15th) are not in the reference.
  sim_process wrong({"--decode-base-ms", "1", "--fault", "wrong-output", "--fault-every", "4", "--fault-token", "3"});
  ASSERT_GT(wrong.port(), 0);
  const auto args =
      serve_args(wrong.url(), "16") + greedy +
      std::vector<std::string>{"--max-concurrency", "1", "--check-outputs", reference_path.string(), "--json", "-"};
  const auto r = run_ironbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = json::parse(r.out);
  const auto& c = run.at("cases").at(0);
  const auto check = json::parse(c.at("notes").at("result").get<std::string>()).at("output_check");
  EXPECT_EQ(check.at("compared"), 12);
  EXPECT_EQ(check.at("identical"), 9);
  EXPECT_EQ(check.at("identical_share"), 0.75);
  EXPECT_EQ(check.at("without_reference"), 4);
  EXPECT_EQ(check.at("first_difference_unit"), "characters");
  // Prompts 4, 8 and 12 (in the reference's order): the '~' replaces the space that begins word 3.
  std::vector<std::size_t> expected;
  for (std::size_t i : {3U, 7U, 11U}) {
    expected.push_back(word_start(reference.at("generated_texts").at(i).get<std::string>(), 3));
  }
  EXPECT_EQ(check.at("first_differences"), json(expected));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(check.at("median_first_difference"), static_cast<double>(expected[1]));
  EXPECT_EQ(metric_of(c, "output_identical_share"), 0.75);
  EXPECT_EQ(metric_of(c, "outputs_without_reference"), 4);
  EXPECT_NE(r.err.find("75.0 % identical (9 of 12 compared, 4 without a reference); the 3 that differ first differ "
                       "at character"),
            std::string::npos)
      << r.err;

  // With a tokenizer (every serve-sim word is one GPT-2 token), the difference is token 3.
  // Random prompts then draw their ids from its vocabulary: the reference is made with it too.
  const auto tokenizer = std::string(IRONBENCH_TOKENIZER_FIXTURES) + "/gpt2.tokenizer.json";
  const temp_dir tokens_dir;
  const auto tokens_reference = make_reference(tokens_dir, {"--tokenizer", tokenizer});
  const auto t =
      run_ironbench(serve_args(wrong.url(), "16") + greedy +
                    std::vector<std::string>{"--max-concurrency", "1", "--check-outputs", tokens_reference.string(),
                                             "--json", "-", "--tokenizer", tokenizer});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const auto tokens =
      json::parse(json::parse(t.out).at("cases").at(0).at("notes").at("result").get<std::string>()).at("output_check");
  EXPECT_EQ(tokens.at("first_difference_unit"), "tokens");
  EXPECT_EQ(tokens.at("first_differences"), json::array({3, 3, 3}));
  EXPECT_EQ(tokens.at("median_first_difference"), 3.0);
  EXPECT_EQ(tokens.at("identical"), 9);
}

TEST(ServeOutputCheck, AReferenceThatCannotBeComparedIsAOneLineUsageError) {
  const temp_dir dir;
  const auto reference = make_reference(dir).string();
  sim_process sim({"--decode-base-ms", "1"});
  ASSERT_GT(sim.port(), 0);
  const auto with = [&](const std::vector<std::string>& extra) { return serve_args(sim.url(), "4") + extra; };
  const auto refused = [&](const std::vector<std::string>& args, const std::string& message) {
    const auto r = run_ironbench(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  refused(with(greedy + std::vector<std::string>{"--check-outputs", (dir / "none.json").string()}),
          "cannot read --check-outputs reference");
  std::ofstream(dir / "text.json") << "not json";
  refused(with(greedy + std::vector<std::string>{"--check-outputs", (dir / "text.json").string()}), "is not JSON");
  std::ofstream(dir / "plain.json") << R"({"completed": 4})";
  refused(with(greedy + std::vector<std::string>{"--check-outputs", (dir / "plain.json").string()}),
          "holds no generated texts");
  refused(with({"--check-outputs", reference}), "--check-outputs compares greedy completions");
  refused(with(greedy + std::vector<std::string>{"--check-outputs", reference, "--seed", "7"}),
          "none of this run's 4 prompts is in");
}

}  // namespace
}  // namespace ironbench::testing
