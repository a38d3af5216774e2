// The lines a scheduler reads to drain a failing node: Slurm's reason text and Kubernetes'
// node condition, from a validation's JSON.
#include "validate/scheduler_formats.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"

namespace ironbench::validate {
namespace {

json check(const std::string& name, const std::string& verdict, double ratio) {
  return {{"check", name}, {"device", "cuda:0"}, {"verdict", verdict}, {"ratio", ratio}};
}

node_validation failing_node() {
  json v = {{"level", "standard"}, {"verdict", "FAIL"}};
  v["checks"] = {check("gemm bf16 8192x8192x8192", "FAIL", 0.612), check("stream triad 1 GiB", "WARN", 0.85),
                 check("gemm fp8 8192x8192x8192", "PASS", 1.01)};
  return {"", v, {}};
}

TEST(SchedulerFormats, TheDrainReasonNamesFailuresThenWarnings) {
  EXPECT_EQ(drain_reason(failing_node()),
            "ironbench validate standard FAIL: gemm bf16 8192x8192x8192 on cuda:0 0.61x expected; WARN stream triad "
            "1 GiB on cuda:0 0.85x expected");
  json pass = {{"level", "quick"}, {"verdict", "PASS"}, {"checks", {check("a", "PASS", 1), check("b", "SKIP", 0)}}};
  EXPECT_EQ(drain_reason({"", pass, {}}), "ironbench validate quick PASS: 2 checks");
  auto slow = failing_node();
  slow.slow_checks = {"stream triad 1 GiB on cuda:0 at 0.71 of the nodes median"};
  EXPECT_NE(drain_reason(slow).find("; slow stream triad 1 GiB on cuda:0 at 0.71"), std::string::npos);
}

TEST(SchedulerFormats, AReasonIsShellSafeAndBounded) {
  json v = {{"level", "quick"}, {"verdict", "FAIL"}, {"checks", json::array()}};
  v["checks"].push_back(check("doctor: \"quoted\" $HOME `id` back\\slash\nnewline", "FAIL", 0.1));
  for (int i = 0; i < 40; ++i) v["checks"].push_back(check("gemm fp64 " + std::to_string(i), "FAIL", 0.5));
  const auto reason = drain_reason({"", v, {}});
  EXPECT_LE(reason.size(), max_reason_chars);
  EXPECT_EQ(reason.find_first_of("\"'$`\\\n"), std::string::npos) << reason;
  EXPECT_NE(reason.find("doctor:  quoted   HOME  id  back slash newline"), std::string::npos) << reason;
  // The checks left out are counted: 41 in all.
  const auto more = reason.rfind("+");
  ASSERT_NE(more, std::string::npos) << reason;
  const int left = std::stoi(reason.substr(more + 1));
  int named = 0;
  for (std::size_t at = 0; (at = reason.find("gemm fp64 ", at)) != std::string::npos; ++at) ++named;
  EXPECT_EQ(1 + named + left, 41) << reason;
}

// A name no hostlist or shell reading can change: `n[1-64],x` would drain 65 nodes in the
// documented `scontrol update NodeName="$node"` loop, `$(...)` would run.
TEST(SchedulerFormats, NodeNamesThatAreNotPlainHostNamesAreEscaped) {
  for (const char* plain : {"gpu-a07", "node.cluster.example", "n_1", "A1"}) {
    EXPECT_TRUE(is_plain_host_name(plain)) << plain;
    EXPECT_EQ(scheduler_node_name(plain), plain);
  }
  const std::string hostile = "n[1-64],x;$(touch /tmp/p) `id` |&<>*?!#~{a,b} \"q\"\t'%";
  EXPECT_FALSE(is_plain_host_name(hostile));
  const auto shown = scheduler_node_name(hostile);
  EXPECT_EQ(shown.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._%"),
            std::string::npos)
      << shown;
  EXPECT_EQ(shown.substr(0, 17), "n%5B1-64%5D%2Cx%3");
  EXPECT_EQ(scheduler_node_name("-rf"), "%2Drf");
  EXPECT_EQ(scheduler_node_name(".."), "%2E.");
  EXPECT_EQ(scheduler_node_name("gpu (rank 1)"), "gpu%20%28rank%201%29");
  EXPECT_EQ(scheduler_node_name("a%5B"), "a%255B") << "'%' itself is escaped: two names never print the same";
  EXPECT_EQ(scheduler_node_name(""), "%00");

  auto bad = failing_node();
  bad.node = hostile;
  const std::vector<node_validation> nodes = {bad, {"gpu-a08", bad.validation, {}}};
  std::ostringstream slurm;
  find_scheduler_format("slurm")->write(nodes, slurm);
  EXPECT_EQ(slurm.str().substr(0, slurm.str().find('\t')), shown);
  std::ostringstream k8s;
  find_scheduler_format("k8s-condition")->write(nodes, k8s);
  // JSON keeps the exact name (as the run file does): its quoting already makes it one string.
  EXPECT_EQ(json::parse(k8s.str().substr(0, k8s.str().find('\n'))).at("node"), hostile);
}

TEST(SchedulerFormats, AReasonHoldsNothingAShellOrHostlistReadsSpecially) {
  json v = {{"level", "quick"}, {"verdict", "FAIL"}, {"checks", json::array()}};
  v["checks"].push_back(check("gemm (provider=cublaslt, x=1) n[1-64];$(id)|&<>*?!#~{a,b}\u00e9", "FAIL", 0.5));
  const auto reason = drain_reason({"", v, {}});
  EXPECT_EQ(reason.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;=+-_/%()"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("gemm (provider=cublaslt, x=1) n 1-64 ; (id)"), std::string::npos) << reason;
}

TEST(SchedulerFormats, TheNodeConditionIsTrueOnlyForAFailure) {
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  const auto failed = node_condition(failing_node(), now);
  EXPECT_EQ(failed.at("type"), "IronbenchValidationFailed");
  EXPECT_EQ(failed.at("status"), "True");
  EXPECT_EQ(failed.at("reason"), "ValidationFailed");
  EXPECT_EQ(failed.at("message"), drain_reason(failing_node()));
  EXPECT_EQ(failed.at("lastHeartbeatTime"), "2027-01-15T08:00:00Z");
  EXPECT_EQ(failed.at("lastTransitionTime"), "2027-01-15T08:00:00Z");
  auto warned = failing_node();
  warned.validation["verdict"] = "WARN";
  EXPECT_EQ(node_condition(warned, now).at("status"), "False");
  EXPECT_EQ(node_condition(warned, now).at("reason"), "ValidationWarned");
  warned.validation["verdict"] = "PASS";
  EXPECT_EQ(node_condition(warned, now).at("reason"), "ValidationPassed");
}

TEST(SchedulerFormats, SeveralNodesGetALineEachWithTheirName) {
  auto a = failing_node();
  a.node = "gpu-a07";
  json pass = {{"level", "standard"}, {"verdict", "PASS"}, {"checks", json::array()}};
  const std::vector<node_validation> nodes = {a, {"gpu-a08", pass, {}}};
  std::ostringstream slurm;
  find_scheduler_format("slurm")->write(nodes, slurm);
  EXPECT_EQ(slurm.str(), "gpu-a07\t" + drain_reason(a) + "\ngpu-a08\tironbench validate standard PASS: 0 checks\n");
  std::ostringstream k8s;
  find_scheduler_format("k8s-condition")->write(nodes, k8s);
  std::istringstream lines(k8s.str());
  std::string line;
  std::vector<json> conditions;
  while (std::getline(lines, line)) conditions.push_back(json::parse(line));
  ASSERT_EQ(conditions.size(), 2U);
  EXPECT_EQ(conditions[0].at("node"), "gpu-a07");
  EXPECT_EQ(conditions[0].at("status"), "True");
  EXPECT_EQ(conditions[1].at("node"), "gpu-a08");
  EXPECT_EQ(conditions[1].at("status"), "False");
  std::ostringstream one;
  find_scheduler_format("slurm")->write({failing_node()}, one);
  EXPECT_EQ(one.str(), drain_reason(failing_node()) + "\n");  // one node: no name column
  EXPECT_EQ(find_scheduler_format("table"), nullptr);
  try {
    (void)find_scheduler_format("xml");
    ADD_FAILURE() << "xml is no format";
  } catch (const usage_error& e) {
    EXPECT_STREQ(e.what(), "--format takes table, slurm, k8s-condition, not 'xml'");
  }
}

}  // namespace
}  // namespace ironbench::validate
