// Recipes: reading, the checks that reject bad ones (one line with file, line and column),
// variables, the matrix and the plan.
#include "experiment/recipe.hpp"

#include <gtest/gtest.h>

#include "experiment/experiment_plan.hpp"
#include "usage_message.hpp"

namespace ironbench::experiment {
namespace {

using testing::usage_message;

recipe read(const std::string& text) { return recipe_from_node(parse_recipe_document(text, "r.yaml"), "r.yaml", text); }

experiment_plan plan(const std::string& text, const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  return plan_experiment(read(text), sets, "1.0", "host-a");
}

const char* const serving_recipe = R"(schema_version: 1
name: serving
tags: {study: vm}
variables:
  port: "8123"
  url: http://127.0.0.1:${port}
  prompts: "20"
matrix:
  concurrency: [4, 8]
  input: [128, 1024]
repeat: 3
steps:
  - service:
      command: ironbench serve-sim --port ${port}
      ready: {url: "${url}", model: sim, timeout: 2m}
  - serve:
      options:
        max-concurrency: ${concurrency}
        random-input-len: ${input}
        num-prompts: ${prompts}
        no-stream: false
        ignore-eos: true
  - command:
      command: 'echo "performance: 12.5 GB/s"'
      metrics:
        - performance: true
)";

TEST(Recipe, ReadsStepsAndNamesThemByKind) {
  const auto r = read(serving_recipe);
  EXPECT_EQ(r.name, "serving");
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].kind, "service");
  EXPECT_EQ(r.steps[0].name, "service");
  EXPECT_EQ(r.steps[1].name, "serve");
  EXPECT_EQ(r.steps[2].metrics.at(0).method, "performance");
  ASSERT_EQ(r.matrix.size(), 2u);
  EXPECT_EQ(r.matrix[0].first, "concurrency");
  EXPECT_EQ(r.steps[1].where.line, 16);
}

TEST(Recipe, PlanHasOnePointPerCombinationWithEveryStringExpanded) {
  const auto p = plan(serving_recipe);
  EXPECT_EQ(p.repeat, 3);
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_EQ(p.points[0].label(), "concurrency=4 input=128");
  EXPECT_EQ(p.points[1].label(), "concurrency=4 input=1024");
  EXPECT_EQ(p.points[3].label(), "concurrency=8 input=1024");
  const auto& service = p.points[0].steps[0];
  EXPECT_EQ(service.command, "ironbench serve-sim --port 8123");
  EXPECT_EQ(service.ready_url, "http://127.0.0.1:8123");
  EXPECT_DOUBLE_EQ(service.ready_timeout_s, 120);
  // The serve step drives the service before it; true is a bare flag, false is left out.
  EXPECT_EQ(p.points[3].steps[1].ironbench_arguments(),
            (std::vector<std::string>{"serve", "--base-url", "http://127.0.0.1:8123", "--max-concurrency", "8",
                                      "--random-input-len", "1024", "--num-prompts", "20", "--ignore-eos"}));
  EXPECT_EQ(p.points[0].steps[2].command_line(), "echo \"performance: 12.5 GB/s\"");
  EXPECT_EQ(p.points[0].steps[2].fail_on, default_fail_on());
  EXPECT_EQ(p.tags, (std::vector<std::pair<std::string, std::string>>{{"study", "vm"}}));
}

TEST(Recipe, HashNamesTheRecipeItsVariablesAndTheHost) {
  const auto a = plan(serving_recipe);
  EXPECT_EQ(a.hash, plan(serving_recipe).hash);
  EXPECT_NE(a.hash, plan(serving_recipe, {{"prompts", "40"}}).hash);
  EXPECT_NE(a.hash, plan_experiment(read(serving_recipe), {}, "1.0", "host-b").hash);
  EXPECT_NE(a.points[0].key, a.points[1].key);
  EXPECT_EQ(a.points[2].key, plan(serving_recipe).points[2].key);
}

TEST(Recipe, SetOverridesAVariableOrPinsAMatrixVariable) {
  const auto p = plan(serving_recipe, {{"concurrency", "16"}, {"port", "9000"}});
  ASSERT_EQ(p.points.size(), 2u);
  EXPECT_EQ(p.points[0].label(), "concurrency=16 input=128");
  EXPECT_EQ(p.points[0].steps[0].ready_url, "http://127.0.0.1:9000");
  EXPECT_EQ(usage_message([] {
              (void)plan(serving_recipe, {{"nope", "1"}});
            }),
            "--set nope: the recipe has no variable 'nope'");
  EXPECT_EQ(usage_message([] { (void)parse_set("=1"); }), "--set takes VAR=VALUE, not '=1'");
  EXPECT_EQ(parse_set("a=b=c"), (std::pair<std::string, std::string>{"a", "b=c"}));
}

// The message of planning `text` (everything before anything would start).
std::string error_of(const std::string& text) {
  return usage_message([&] { (void)plan(text); });
}

const std::string head = "schema_version: 1\nname: x\n";
const std::string echo_step = "steps:\n  - command: {command: echo, metrics: [{performance: true}]}\n";

TEST(RecipeErrors, EachNamesFileLineAndColumn) {
  EXPECT_EQ(error_of(head + "colour: red\n" + echo_step),
            "r.yaml:3:1: unknown key 'colour' in the recipe (known: schema_version, name, description, tags, "
            "variables, profiles, matrix, repeat, trim, fail_on, steps)");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: http://h, option: {a: 1}}\n"),
            "r.yaml:4:28: unknown key 'option' in serve step (known: url, options, name, timeout, when, repeat)");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: [a, b]}\n"),
            "r.yaml:4:18: 'url' in serve step must be a scalar, not a list");
  EXPECT_EQ(error_of(head + "steps:\n  - deploy: {}\n"),
            "r.yaml:4:5: unknown step kind 'deploy' (known: service, serve, bench, collectives, train, command, "
            "import)");
  EXPECT_EQ(error_of(head + "steps:\n  - command: {command: 'echo ${who}', metrics: [{performance: true}]}\n"),
            "r.yaml:4:24: undefined variable 'who'");
  EXPECT_EQ(error_of(head + "variables:\n  a: ${b}\n  b: x${a}\n" + echo_step),
            "r.yaml:4:6: variable 'a' refers to itself: a -> b -> a");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: http://h, timeout: soon}\n"),
            "r.yaml:4:37: invalid timeout 'soon': not a finite number");
  EXPECT_EQ(error_of(head + "steps: [\n"), "r.yaml:4:1: end of sequence flow not found");
  EXPECT_EQ(error_of(head + "name: y\n" + echo_step), "r.yaml:3:1: duplicate key 'name'");
  EXPECT_EQ(error_of("schema_version: 2\nname: x\n" + echo_step),
            "r.yaml:1:17: schema_version 2 is not one this build reads (1)");
  EXPECT_EQ(error_of("schema_version: 1\n" + echo_step), "r.yaml:1:1: the recipe needs 'name'");
  EXPECT_EQ(error_of(head + "repeat: 0\n" + echo_step), "r.yaml:3:9: repeat must be at least 1");
  EXPECT_EQ(error_of(head + "repeat: many\n" + echo_step), "r.yaml:3:9: invalid repeat 'many': not an integer");
  EXPECT_EQ(error_of(head + "steps:\n  - command: {command: x, metrics: [{regex: a, csv: b}]}\n"),
            "r.yaml:4:37: a metric takes one of regex, json, performance, csv; this one has regex and csv");
  EXPECT_EQ(error_of(head + "steps:\n  - command: {command: x, metrics: [{json: out.json}]}\n"),
            "r.yaml:4:37: a json metric needs 'pointer'");
  EXPECT_EQ(error_of(head + "steps:\n  - service: {command: x, ready: {timeout: 5s}}\n"),
            "r.yaml:4:34: ready needs 'url' (a /v1/models check and a one-token completion) or 'log'");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {options: {max-concurrency: 4}}\n"),
            "r.yaml:4:5: a serve step needs 'url' when no service with a ready url comes before it");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: a}\n  - serve: {url: b, name: serve}\n"),
            "r.yaml:5:5: two steps are named 'serve'");
  EXPECT_EQ(error_of(head + "profiles: {cpu: {a: b}}\n" + echo_step),
            "r.yaml:3:11: profiles need a variable 'profile' naming the default one");
  EXPECT_EQ(error_of(head + "variables: {profile: tpu}\nprofiles: {cpu: {a: b}, gpu: {a: c}}\n" + echo_step),
            "r.yaml:3:22: profile 'tpu' is not one of the recipe's profiles (cpu, gpu)");
  EXPECT_EQ(error_of(head + "variables: {profile: cpu}\nprofiles: {cpu: [a]}\n" + echo_step),
            "r.yaml:4:17: profile 'cpu' must be a map of variables");
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: a, when: sometimes}\n"),
            "r.yaml:4:27: when must be true, false, 'A == B', 'A != B' or 'A in B,C', not 'sometimes'");
  EXPECT_EQ(error_of(head + "variables: {c: '4,,8'}\nmatrix: {n: '${c}'}\n" + echo_step),
            "r.yaml:4:13: matrix 'n': an empty value in '4,,8'");
}

// A duration, a repeat count and a tag key a recipe gives are bounded where they are read:
// "99999999999999999999h" is a finite number of seconds but no deadline, a billion repeats
// never end, a tag key is a name (`../../x` is none).
TEST(RecipeErrors, DurationsRepeatsAndTagKeysAreBounded) {
  EXPECT_EQ(error_of(head + "steps:\n  - serve: {url: http://h, timeout: 99999999999999999999h}\n"),
            "r.yaml:4:37: timeout '99999999999999999999h' is longer than the 168 h (a week) a recipe's duration "
            "may be");
  EXPECT_EQ(error_of(head + "steps:\n  - service: {command: x, ready: {log: up, timeout: 169h}}\n"),
            "r.yaml:4:53: ready timeout '169h' is longer than the 168 h (a week) a recipe's duration may be");
  EXPECT_EQ(error_of(head + "steps:\n  - service: {command: x, ready: {log: up}, stop_grace: 1e9s}\n"),
            "r.yaml:4:57: stop_grace '1e9s' is longer than the 168 h (a week) a recipe's duration may be");
  EXPECT_EQ(error_of(head + "repeat: 1000000000\n" + echo_step),
            "r.yaml:3:9: repeat 1000000000 is more than the 1000 a recipe may ask for");
  EXPECT_EQ(error_of(head + "repeat: 99999999999\n" + echo_step),
            "r.yaml:3:9: repeat 99999999999 is more than the 1000 a recipe may ask for");
  EXPECT_EQ(error_of(head + "steps:\n  - command: {command: x, metrics: [{performance: true}], repeat: 1001}\n"),
            "r.yaml:4:67: repeat 1001 is more than the 1000 a recipe may ask for");
  EXPECT_EQ(error_of(head + "tags: {../../x: y}\n" + echo_step),
            "r.yaml:3:17: '../../x' is not a tag name (letters, digits, '_', '-', '.')");
  EXPECT_EQ(error_of(head + "tags: {'a b': y}\n" + echo_step),
            "r.yaml:3:15: 'a b' is not a tag name (letters, digits, '_', '-', '.')");
  EXPECT_EQ(error_of(head + "variables: {v: \"a\\nb\"}\ntags: {study: '${v}'}\n" + echo_step),
            "r.yaml:4:15: tag 'study' must be one line");
  // The bounds themselves are taken.
  const auto p = plan(head +
                      "repeat: 1000\ntags: {gpu.model-2_x: h200}\nsteps:\n  - command: {command: x, metrics: "
                      "[{performance: true}], timeout: 168h}\n");
  EXPECT_EQ(p.repeat, 1000);
  EXPECT_EQ(p.tags.at(0).first, "gpu.model-2_x");
}

const char* const profiled_recipe = R"(schema_version: 1
name: profiled
variables:
  profile: gpu
  engine: vllm serve ${model}
  model: meta-llama/Llama-3.1-8B-Instruct
  concurrencies: 4,8,16,32
  with_tool: "true"
profiles:
  gpu: {}
  cpu:
    engine: ironbench serve-sim
    concurrencies: "2, 4"
    with_tool: "false"
matrix:
  concurrency: ${concurrencies}
  size: ["1,2", "3"]
steps:
  - command: {command: '${engine} ${concurrency} ${size}', metrics: [{performance: true}]}
  - command: {command: tool, metrics: [{performance: true}], when: '${with_tool}'}
  - command: {command: once, metrics: [{performance: true}], when: '${concurrency} == 4', repeat: 3}
  - command: {command: big, metrics: [{performance: true}], when: '${concurrency} in 16, 32'}
)";

TEST(Recipe, AProfileSetsItsVariablesAndAMatrixWrittenAsTextIsSplitAtCommas) {
  const auto gpu = plan(profiled_recipe);
  ASSERT_EQ(gpu.points.size(), 8u);
  EXPECT_EQ(gpu.points[0].steps.size(), 3u);
  EXPECT_EQ(gpu.points[0].steps[2].repeat, 3);
  EXPECT_EQ(gpu.points[2].steps.size(), 2u) << "when: '${concurrency} == 4' at concurrency 8";
  EXPECT_EQ(gpu.points[4].steps.size(), 3u) << "when: '${concurrency} in 16, 32' at 16";
  EXPECT_EQ(gpu.points[6].steps.back().command, "big");
  EXPECT_EQ(gpu.points[0].steps[0].command, "vllm serve meta-llama/Llama-3.1-8B-Instruct 4 1,2");
  EXPECT_EQ(gpu.points[7].steps[0].command, "vllm serve meta-llama/Llama-3.1-8B-Instruct 32 3");

  const auto cpu = plan(profiled_recipe, {{"profile", "cpu"}});
  ASSERT_EQ(cpu.points.size(), 4u) << "a matrix written as a list keeps '1,2' as one value";
  EXPECT_EQ(cpu.points[0].steps.size(), 1u) << "when: false leaves the step out";
  EXPECT_EQ(cpu.points[2].steps.size(), 2u) << "concurrency 4 runs the 'once' step";
  EXPECT_EQ(cpu.points[0].steps[0].command, "ironbench serve-sim 2 1,2");
  EXPECT_EQ(cpu.points[3].label(), "concurrency=4 size=3");
  EXPECT_NE(cpu.hash, gpu.hash);

  // --set wins over the profile; a variable only a profile defines can be set too.
  const auto mixed = plan(profiled_recipe, {{"profile", "cpu"}, {"engine", "sglang"}, {"concurrencies", "64"}});
  ASSERT_EQ(mixed.points.size(), 2u);
  EXPECT_EQ(mixed.points[0].steps[0].command, "sglang 64 1,2");
  // --set of the matrix variable itself: that one value.
  EXPECT_EQ(plan(profiled_recipe, {{"concurrency", "7"}}).points.size(), 2u);
}

TEST(Recipe, TheIronbenchVariableIsBuiltInLeftOutOfTheHashAndARecipeMayDefineIt) {
  const auto text =
      head + "steps:\n  - command: {command: '${ironbench} run stream', metrics: [{performance: true}]}\n";
  const auto a = plan_experiment(read(text), {}, "1.0", "host-a", {{"ironbench", "/opt/a/ironbench"}});
  const auto b = plan_experiment(read(text), {}, "1.0", "host-a", {{"ironbench", "/opt/b/ironbench"}});
  EXPECT_EQ(a.points[0].steps[0].command, "/opt/a/ironbench run stream");
  EXPECT_EQ(a.hash, b.hash) << "moving the executable does not make another experiment";
  const auto own = head + "variables: {ironbench: /usr/bin/ironbench}\n" + text.substr(head.size());
  EXPECT_EQ(
      plan_experiment(read(own), {}, "1.0", "host-a", {{"ironbench", "/opt/a/ironbench"}}).points[0].steps[0].command,
      "/usr/bin/ironbench run stream");
  EXPECT_EQ(plan_experiment(read(text), {{"ironbench", "ib"}}, "1.0", "host-a", {{"ironbench", "/x"}})
                .points[0]
                .steps[0]
                .command,
            "ib run stream");
}

}  // namespace
}  // namespace ironbench::experiment
