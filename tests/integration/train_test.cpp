// `ironbench train` as users run it: the real binaries (ironbench hands over to
// ironbench-train), data parallelism over MPI ranks on this machine, batch sweeps that run out
// of memory, and bad input.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/json.hpp"
#include "process.hpp"

namespace ironbench::testing {
namespace {

// A model small enough for a test: 2 blocks, width 64, 32 tokens, vocabulary 512.
const std::vector<std::string> tiny = {
    "--model", "custom", "--layers", "2", "--heads",        "2", "--d-model", "64", "--d-ff", "256", "--seq-len", "32",
    "--vocab", "512",    "--steps",  "8", "--warmup-steps", "2", "--no-save", "-q", "--json", "-"};

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::vector<std::string> mpirun(int ranks) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_mpi_yield_when_idle", "1", 1);
  setenv("OMPI_MCA_btl", "self,vader,tcp", 0);
  return {"--oversubscribe", "-np", std::to_string(ranks), IRONBENCH_BINARY, "train"};
}

json run_json(const process_result& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

std::vector<double> loss_curve(const json& c) { return c.at("series").at("loss").get<std::vector<double>>(); }

std::pair<double, double> checksum(const json& c) {
  const auto text = c.at("notes").at("final_parameter_checksum").get<std::string>();
  double sum = 0, squares = 0;
  EXPECT_EQ(std::sscanf(text.c_str(), "sum %lf squares %lf", &sum, &squares), 2) << text;
  return {sum, squares};
}

double metric(const json& c, const std::string& name) {
  for (const auto& m : c.at("metrics")) {
    if (m.at("name") == name) return m.at("value").get<double>();
  }
  ADD_FAILURE() << "no metric " << name << " in " << c.dump();
  return 0;
}

TEST(Train, GptRunIsValidAndLearns) {
  const auto r = run_ironbench(with({"train", "gpt", "--batch", "2"}, tiny));
  const auto doc = run_json(r);
  // The console table (on stderr: the JSON goes to stdout) names the peak behind MFU.
  EXPECT_NE(r.err.find("MFU against: fp32 dense peak"), std::string::npos) << r.err;
  ASSERT_EQ(doc.at("cases").size(), 1u);
  const auto& c = doc.at("cases")[0];
  EXPECT_EQ(c.at("benchmark"), "train_gpt");
  EXPECT_EQ(c.at("status"), "valid") << c.dump();
  EXPECT_LT(metric(c, "loss_last"), metric(c, "loss_first"));
  EXPECT_GT(metric(c, "tokens_per_s"), 0);
  EXPECT_EQ(loss_curve(c).size(), 10u);
  EXPECT_EQ(c.at("time").at("samples").size(), 8u);
  EXPECT_EQ(doc.at("settings").at("workload"), "gpt");
  EXPECT_NE(c.at("notes").at("mfu_peak").get<std::string>().find("fp32"), std::string::npos);
}

TEST(Train, LoraAndMlpWorkloads) {
  const auto lora =
      run_json(run_ironbench(with({"train", "lora", "--batch", "2", "--lora-rank", "4", "--lr", "3e-3"}, tiny)));
  const auto& l = lora.at("cases")[0];
  EXPECT_EQ(l.at("benchmark"), "train_lora");
  EXPECT_EQ(l.at("status"), "valid") << l.dump();
  EXPECT_LT(metric(l, "trainable_parameters"), metric(l, "parameters"));
  EXPECT_EQ(l.at("params").at("lora_r"), 4);
  const auto mlp = run_json(run_ironbench({"train", "mlp", "--widths", "64-128-32", "--batch", "16", "--steps", "8",
                                           "--warmup-steps", "2", "--no-save", "-q", "--json", "-"}));
  const auto& m = mlp.at("cases")[0];
  EXPECT_EQ(m.at("benchmark"), "train_mlp");
  EXPECT_EQ(m.at("status"), "valid") << m.dump();
  EXPECT_EQ(m.at("params").at("widths"), "64-128-32");
  EXPECT_GT(metric(m, "samples_per_s"), 0);
}

TEST(Train, TwoRanksEqualOneRankWithTheDoubledBatch) {
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)";
  const auto two = run_json(wait_for(start_program("mpirun", with(with(mpirun(2), {"gpt", "--batch", "2"}), tiny))));
  const auto one = run_json(run_ironbench(with({"train", "gpt", "--batch", "4"}, tiny)));
  const auto& dp = two.at("cases")[0];
  const auto& single = one.at("cases")[0];
  EXPECT_EQ(dp.at("status"), "valid") << dp.dump();
  EXPECT_EQ(dp.at("params").at("ranks"), 2);
  EXPECT_EQ(dp.at("params").at("global_batch"), 4);
  EXPECT_EQ(dp.at("params").at("parallelism"), "ddp");
  const auto a = loss_curve(dp), b = loss_curve(single);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::abs(b[i])) << "step " << i + 1;
  const auto [dp_sum, dp_squares] = checksum(dp);
  const auto [one_sum, one_squares] = checksum(single);
  EXPECT_NEAR(dp_sum, one_sum, 1e-6 * std::abs(one_sum));
  EXPECT_NEAR(dp_squares, one_squares, 1e-6 * std::abs(one_squares));
}

TEST(Train, ScalingSweepReportsEfficiency) {
  if (!have_program("mpirun")) GTEST_SKIP() << "mpirun not found (scripts/setup.sh installs openmpi-bin)";
  const auto doc = run_json(
      wait_for(start_program("mpirun", with(with(mpirun(2), {"gpt", "--batch", "2", "--scaling", "1,2"}), tiny))));
  ASSERT_EQ(doc.at("cases").size(), 2u);
  for (const auto& c : doc.at("cases")) {
    EXPECT_EQ(c.at("benchmark"), "ddp_scaling");
    EXPECT_EQ(c.at("status"), "valid") << c.dump();
  }
  EXPECT_EQ(doc.at("cases")[0].at("params").at("ranks"), 1);
  EXPECT_EQ(doc.at("cases")[1].at("params").at("ranks"), 2);
  EXPECT_DOUBLE_EQ(metric(doc.at("cases")[0], "scaling_efficiency"), 100);
  const double efficiency = metric(doc.at("cases")[1], "scaling_efficiency");
  const double expected =
      100 * metric(doc.at("cases")[1], "tokens_per_s") / (2 * metric(doc.at("cases")[0], "tokens_per_s"));
  EXPECT_NEAR(efficiency, expected, 1e-9);
  EXPECT_EQ(doc.at("host").at("ranks").size(), 2u);
}

TEST(Train, OutOfMemoryIsRecordedAndTheSweepGoesOn) {
  if (!have_program("prlimit")) GTEST_SKIP() << "prlimit (util-linux) not found";
  // 4 GB of address space: batch 200000 of 32 tokens cannot be allocated; batches 2 and 4 can.
  const auto r = wait_for(start_program(
      "prlimit", with({"--as=4000000000", IRONBENCH_BINARY, "train", "gpt", "--batch", "2,200000,4"}, tiny)));
  const auto doc = run_json(r);
  ASSERT_EQ(doc.at("cases").size(), 3u);
  EXPECT_EQ(doc.at("cases")[0].at("status"), "valid");
  const auto& oom = doc.at("cases")[1];
  EXPECT_EQ(oom.at("status"), "skipped");
  EXPECT_EQ(oom.at("params").at("batch"), 200000);
  EXPECT_NE(oom.at("reason").get<std::string>().find("out of memory at batch 200000"), std::string::npos);
  EXPECT_EQ(doc.at("cases")[2].at("status"), "valid") << doc.at("cases")[2].dump();
  EXPECT_EQ(doc.at("status"), "valid");
}

TEST(Train, InterruptedRunWritesWhatItMeasured) {
  const auto dir = make_temp_dir("ironbench-train-interrupt");
  const std::vector<std::string> args = {"train",          "gpt",     "--batch",        "2,4", "--model",   "custom",
                                         "--layers",       "2",       "--heads",        "2",   "--d-model", "64",
                                         "--d-ff",         "256",     "--seq-len",      "32",  "--vocab",   "512",
                                         "--steps",        "1000000", "--warmup-steps", "2",   "--no-save", "--json",
                                         dir + "/run.json"};
  const auto p = start_ironbench(args);
  // Interrupted once the console shows four steps past the warm-up, not after a fixed delay that
  // a loaded machine's slow start (libtorch's) would use up.
  EXPECT_TRUE(wait_for_output(
      p, [](const std::string& out) { return out.find("  step    6/") != std::string::npos; }, 120, false))
      << read_file(p.out_path) << read_file(p.err_path);
  kill(p.pid, SIGINT);
  const auto r = wait_for(p);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  const auto doc = json::parse(read_file(dir + "/run.json"));
  EXPECT_EQ(doc.at("status"), "interrupted");
  ASSERT_EQ(doc.at("cases").size(), 1u);  // the second batch size never started
  const auto& c = doc.at("cases")[0];
  EXPECT_NE(c.at("notes").at("interrupted").get<std::string>().find("of 1000002 steps"), std::string::npos);
  EXPECT_GT(c.at("series").at("loss").size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(Train, BadInputIsOneLineAndExitTwo) {
  const std::vector<std::vector<std::string>> bad = {
      {"train", "bert"},
      {"train", "gpt", "--model", "huge"},
      {"train", "gpt", "--dtype", "fp16", "--device", "cpu"},
      {"train", "gpt", "--batch", "0"},
      {"train", "gpt", "--heads", "5"},
      {"train", "gpt", "--device", "cuda:0"},
      {"train", "lora", "--lora-targets", "attention"},
      {"train", "gpt", "--scaling", "4"},
      {"train", "mlp", "--widths", "64-x"},
  };
  for (const auto& args : bad) {
    const auto r = run_ironbench(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << r.err;
    EXPECT_EQ(lines_of(r.err).size(), 1u) << joined << r.err;
    EXPECT_EQ(r.err.rfind("ironbench: error: ", 0), 0u) << joined << r.err;
  }
}

TEST(Train, StoredWithItsLossCurve) {
  const auto dir = make_temp_dir("ironbench-train");
  const auto db = dir + "/results.db";
  const auto r =
      run_ironbench(with({"train", "gpt", "--batch", "2", "--db", db, "--results-dir", dir, "--tag", "env=test"},
                         std::vector<std::string>(tiny.begin(), tiny.end() - 4)));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stored: run"), std::string::npos) << r.out;
  const auto listed = run_ironbench({"results", "list", "--db", db, "--tag", "env=test", "--benchmark", "train_gpt"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("train_gpt"), std::string::npos) << listed.out;
  const auto at = r.out.find("stored: run ");
  ASSERT_NE(at, std::string::npos);
  const auto id = std::stoi(r.out.substr(at + 12));
  const auto shown = run_ironbench({"results", "export", "--db", db, std::to_string(id)});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto stored = json::parse(shown.out);
  EXPECT_EQ(stored.at("cases")[0].at("series").at("loss").size(), 10u);
}

}  // namespace
}  // namespace ironbench::testing
