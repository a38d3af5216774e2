// What a recipe may grow into (experiment/recipe_limits.hpp): YAML aliases, variables that
// refer to each other and the matrix multiply a few kilobytes; each bound is a usage error
// naming it, reached before the memory is spent. And the names that become paths.
#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

#include "experiment/experiment_plan.hpp"
#include "experiment/plan_text.hpp"
#include "experiment/recipe.hpp"
#include "experiment/recipe_limits.hpp"
#include "timed_check.hpp"
#include "usage_message.hpp"

namespace ironbench::experiment::bounds_test {
namespace {

using testing::usage_message;

const std::string head = "schema_version: 1\nname: x\n";
const std::string echo_step = "steps:\n  - command: {command: echo, metrics: [{performance: true}]}\n";

experiment_plan plan(const std::string& text) {
  return plan_experiment(recipe_from_node(parse_recipe_document(text, "r.yaml"), "r.yaml", text), {}, "1.0", "h");
}

// The message of planning `text`, which must come within a few seconds (a hang guard: docs/
// testing.md, "Tests that judge time"; a document that escaped its limits would take minutes).
std::string error_of(const std::string& text) {
  const auto started = std::chrono::steady_clock::now();
  auto message = usage_message([&] { (void)plan(text); });
  SCOPED_TRACE(message);
  testing::expect_time_not_above("planning a recipe the limits refuse",
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 0,
                                 10, "s");
  return message;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A billion laughs: nine levels of ten aliases each, 10^9 scalars once expanded.
std::string billion_laughs(const std::string& where_used) {
  std::string text = head + "x0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 9; ++i) {
    const auto prev = "*l" + std::to_string(i - 1);
    text += "x" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) text += ", " + prev;
    text += "]\n";
  }
  return text + where_used;
}

TEST(RecipeBounds, ABillionLaughsDocumentStopsAtTheNodeLimit) {
  // Unknown keys are checked after the document is read, so the bound comes first.
  const auto message = error_of(billion_laughs(echo_step));
  EXPECT_TRUE(contains(message, "the recipe expands to more than 100000 YAML nodes")) << message;
  EXPECT_EQ(message.rfind("r.yaml:", 0), 0u) << message;
}

TEST(RecipeBounds, ALongScalarRepeatedByAliasesStopsAtTheTextLimit) {
  const std::string big(64 * 1024, 'x');
  std::string text = head + "a: &big " + big + "\nb: [";
  for (int i = 0; i < 100; ++i) text += std::string(i == 0 ? "" : ", ") + "*big";
  text += "]\n" + echo_step;
  const auto message = error_of(text);
  EXPECT_TRUE(contains(message, "the recipe expands to more than 4 MiB of text")) << message;
}

TEST(RecipeBounds, AnAliasInsideItselfStopsAtTheDepthLimit) {
  // yaml-cpp registers an anchor before its node ends: each of these is a node inside itself.
  for (const auto* cyclic : {"variables: &v {a: *v}\n", "a: &l [*l]\n"}) {
    const auto message = error_of(head + cyclic + echo_step);
    EXPECT_TRUE(contains(message, "r.yaml:3:")) << message;
    EXPECT_TRUE(contains(message, "the recipe nests maps and lists deeper than 64 levels (aliases expanded)"))
        << message;
  }
}

// Variables a1 .. aN, each the one before twice.
std::string doubling(int levels, const std::string& first) {
  std::string text = head + "variables:\n  a0: '" + first + "'\n";
  for (int i = 1; i <= levels; ++i) {
    text += "  a" + std::to_string(i) + ": '${a" + std::to_string(i - 1) + "}${a" + std::to_string(i - 1) + "}'\n";
  }
  return text + echo_step;
}

TEST(RecipeBounds, DoublingVariablesStopAtTheValueLength) {
  EXPECT_EQ(plan(doubling(10, "x")).variables.size(), 11u) << "1 KiB is fine";
  const auto message = error_of(doubling(40, std::string(1024, 'x')));
  EXPECT_TRUE(contains(message, "a value expands to more than 1 MiB (the limit of an expanded value)")) << message;
}

TEST(RecipeBounds, DoublingEmptyVariablesStopAtTheReferenceLimit) {
  const auto message = error_of(doubling(40, ""));
  EXPECT_TRUE(contains(message, "expand more than 500000 references (the limit of a plan's expansion)")) << message;
}

TEST(RecipeBounds, ManyCopiesOfALongValueStopAtThePlansTextLimit) {
  std::string text = head + "variables:\n  a0: " + std::string(1024, 'x') + "\n";
  for (int i = 1; i <= 9; ++i) {  // a9: 512 KiB
    text += "  a" + std::to_string(i) + ": '${a" + std::to_string(i - 1) + "}${a" + std::to_string(i - 1) + "}'\n";
  }
  for (int i = 0; i < 600; ++i) text += "  c" + std::to_string(i) + ": '${a9}'\n";
  const auto message = error_of(text + echo_step);
  EXPECT_TRUE(contains(message, "expand to more than 256 MiB of text (the limit of a plan's expansion)")) << message;
}

TEST(RecipeBounds, AMatrixPastThePointLimitIsRefusedBeforeItsPointsAreMade) {
  std::string text = head + "matrix:\n";
  std::string values = "[";
  for (int v = 0; v < 100; ++v) values += (v == 0 ? "" : ", ") + std::to_string(v);
  values += "]";
  for (int i = 0; i < 10; ++i) text += "  v" + std::to_string(i) + ": " + values + "\n";
  const auto message = error_of(text + echo_step);
  EXPECT_TRUE(contains(message, "r.yaml:6:")) << "at v2, whose values pass the limit: " << message;
  EXPECT_TRUE(contains(message, "the matrix has 100000000000000000000 points (100 v0 x 100 v1 x 100 v2 x")) << message;
  EXPECT_TRUE(contains(message, "more than 10000 (the limit of points in a plan)")) << message;
}

TEST(RecipeBounds, ThePlanShowsItsPointCountAndTheGrid) {
  const auto p = plan(head + "matrix: {c: [1, 2, 3], n: [a, b]}\n" + echo_step);
  EXPECT_EQ(p.points.size(), 6u);
  EXPECT_EQ(p.matrix_sizes, (std::vector<std::pair<std::string, std::size_t>>{{"c", 3}, {"n", 2}}));
  std::ostringstream out;
  write_plan(p, out);
  EXPECT_TRUE(contains(out.str(), ": 6 points (3 c x 2 n) x 1 repeat\n")) << out.str();
}

TEST(RecipeNames, ANameThatWouldLeaveTheResultsFolderIsRefused) {
  EXPECT_EQ(error_of("schema_version: 1\nname: ../../etc\n" + echo_step),
            "r.yaml:2:7: the recipe's name '../../etc' cannot name a file: use letters, digits, '.', '_' and '-' "
            "(not '.' or '-' first), at most 100 characters");
  EXPECT_TRUE(contains(error_of("schema_version: 1\nname: a/b\n" + echo_step), "the recipe's name 'a/b'"));
  EXPECT_TRUE(contains(error_of("schema_version: 1\nname: \"two\\nlines\"\n" + echo_step),
                       "the recipe's name 'two\\nlines' cannot name a file"));
  EXPECT_TRUE(contains(error_of(head + "steps:\n  - command: {name: ../up, command: echo, metrics: [{performance: "
                                       "true}]}\n"),
                       "r.yaml:4:5: step name '../up' cannot name a file"));
  EXPECT_TRUE(contains(error_of(head + "steps:\n  - command: {name: \"a\\nb\", command: echo, metrics: "
                                       "[{performance: true}]}\n"),
                       "step name 'a\\nb' cannot name a file"));
  EXPECT_TRUE(contains(error_of("schema_version: 1\nname: " + std::string(101, 'n') + "\n" + echo_step),
                       "at most 100 characters"));
}

TEST(RecipeNames, TheShippedKindsOfNamesAreAccepted) {
  for (const auto* name : {"baremetal-vs-vm", "gpt-1.5b", "rccl_all_gather", "replica0", "serve-2", "A.B"}) {
    EXPECT_TRUE(is_recipe_name(name)) << name;
  }
  for (const auto* name : {"", ".", "..", ".hidden", "-rf", "a/b", "a b", "a\nb", "caf\xc3\xa9"}) {
    EXPECT_FALSE(is_recipe_name(name)) << name;
  }
}

}  // namespace
}  // namespace ironbench::experiment::bounds_test
