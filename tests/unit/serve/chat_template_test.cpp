// Chat templates rendered by ironbench's Jinja renderer against Hugging Face transformers'
// render_jinja_template on the same templates and conversations (tests/chat_template/), plus
// the rules each part follows on its own.
#include "serve/chat/chat_template.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "files.hpp"
#include "serve/chat/jinja_template.hpp"
#include "temp_dir.hpp"

namespace ironbench::serve::chat {
namespace {

const std::string cases_dir = IRONBENCH_CHAT_TEMPLATE_CASES;

std::string render(const std::string& source, const json& variables = json::object()) {
  return jinja_template(source).render(jinja_value::from_json(variables).as_dict());
}

// The jinja_error a template's rendering gives, or "no error".
std::string render_error(const std::string& source) {
  try {
    (void)render(source);
  } catch (const jinja_error& e) {
    return e.what();
  }
  return "no error";
}

struct comparison {
  std::size_t same = 0;
  std::size_t refused_by_both = 0;
  std::vector<std::string> refused_here;  ///< transformers renders, ironbench refuses (names the error)
  std::map<std::string, std::size_t> same_per_template;
};

// Every case of `folder`/cases.json: ironbench renders exactly transformers' text, or fails where
// transformers fails. A different text is a test failure; a refusal here is listed.
comparison compare_with_transformers(const std::string& folder) {
  comparison result;
  const auto cases = json::parse(testing::read_file(folder + "/cases.json"));
  std::map<std::string, std::unique_ptr<chat_template>> templates;
  for (const auto& c : cases) {
    const auto path = c.at("path").get<std::string>();
    const auto name = c.at("template").get<std::string>() + "/" + c.at("conversation").get<std::string>() +
                      (c.at("add_generation_prompt").get<bool>() ? "+prompt" : "");
    std::string text;
    std::string error;
    try {
      if (!templates.contains(path)) {
        templates[path] =
            std::make_unique<chat_template>(chat_template::from_text(testing::read_file(path), c.at("special_tokens")));
      }
      text = templates[path]->render(c.at("messages"), c.at("add_generation_prompt").get<bool>());
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (c.contains("error")) {
      EXPECT_FALSE(error.empty()) << name << ": transformers fails (" << c["error"].get<std::string>()
                                  << ") but ironbench rendered:\n"
                                  << text;
      if (!error.empty()) ++result.refused_by_both;
    } else if (!error.empty()) {
      result.refused_here.push_back(name + ": " + error);
    } else {
      EXPECT_EQ(text, c.at("text").get<std::string>()) << name;
      if (text == c.at("text").get<std::string>()) {
        ++result.same;
        ++result.same_per_template[c.at("template").get<std::string>()];
      }
    }
  }
  return result;
}

TEST(ChatTemplateTransformers, TheTestTemplatesRenderAsTransformersRendersThem) {
  if (std::filesystem::exists(cases_dir + "/SKIPPED")) GTEST_SKIP() << testing::read_file(cases_dir + "/SKIPPED");
  ASSERT_TRUE(std::filesystem::exists(cases_dir + "/cases.json")) << "cases missing in " << cases_dir;
  const auto result = compare_with_transformers(cases_dir);
  for (const auto& refusal : result.refused_here) ADD_FAILURE() << "refused: " << refusal;
  EXPECT_GE(result.same, 30u);
  EXPECT_GE(result.refused_by_both, 2u);  // the raise_exception() paths
}

// The real models' templates (llama.cpp's collection): every one that renders renders exactly;
// the families serving benchmarks use most render every conversation.
TEST(ChatTemplateSlow, RealModelTemplatesRenderAsTransformersRendersThem) {
  const auto real = cases_dir + "/real";
  if (std::filesystem::exists(real + "/SKIPPED")) GTEST_SKIP() << testing::read_file(real + "/SKIPPED");
  ASSERT_TRUE(std::filesystem::exists(real + "/cases.json")) << "cases missing in " << real;
  const auto result = compare_with_transformers(real);
  for (const char* family :
       {"meta-llama-Llama-3.1-8B-Instruct", "meta-llama-Llama-3.2-3B-Instruct", "meta-llama-Llama-3.3-70B-Instruct",
        "Qwen-Qwen2.5-7B-Instruct", "mistralai-Mistral-Nemo-Instruct-2407"}) {
    const auto found = result.same_per_template.find(family);
    EXPECT_TRUE(found != result.same_per_template.end() && found->second >= 6) << family;
  }
  std::cout << result.same << " cases rendered exactly as transformers, " << result.refused_by_both
            << " refused by both, " << result.refused_here.size() << " refused by ironbench only:\n";
  for (const auto& refusal : result.refused_here) std::cout << "  " << refusal << "\n";
  EXPECT_GE(result.same, 600u);
}

TEST(JinjaTemplate, BlockTagsTakeTheirLineAndMarkersStripWhitespace) {
  // trim_blocks: a block tag's newline goes; lstrip_blocks: the indentation before it goes.
  EXPECT_EQ(render("{% if true %}\n  yes\n  {% endif %}\nend"), "  yes\nend");
  EXPECT_EQ(render("a  {{- 'b' -}}  c"), "abc");
  EXPECT_EQ(render("a\n  {%- if true %}b{% endif %}"), "ab");
  EXPECT_EQ(render("  {%+ if true %}b{% endif %}"), "  b");
  EXPECT_EQ(render("x {# note #}\ny"), "x y");
  EXPECT_EQ(render("{{ 'v' }}\nnext"), "v\nnext");  // print tags keep their newline
  EXPECT_EQ(render("{% raw %}{{ x }}{% endraw %}"), "{{ x }}");
}

TEST(JinjaTemplate, LoopScopesNamespacesAndMacrosFollowJinja) {
  EXPECT_EQ(render("{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + i %}{{ x }}{% endfor %}{{ x }}"), "231");
  EXPECT_EQ(
      render("{% set ns = namespace(n=0) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"),
      "6");
  EXPECT_EQ(render("{% macro m(a, b='d') %}{{ a }}{{ b }}{% endmacro %}{{ m(1) }}{{ m(1, b=2) }}"), "1d12");
  EXPECT_EQ(
      render("{% for i in [1, 2, 3] if i != 2 %}{{ loop.index }}:{{ i }}{% if loop.last %}.{% endif %}{% endfor %}"),
      "1:12:3.");
  EXPECT_EQ(render("{% for i in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(render("{% for i in range(5) %}{% if i == 3 %}{% break %}{% endif %}{{ i }}{% endfor %}"), "012");
}

TEST(JinjaTemplate, ValuesPrintAsPythonPrintsThem) {
  EXPECT_EQ(render("{{ 0.1 }} {{ 1.0 }} {{ 1e16 }} {{ 1e-05 }} {{ 7 // -2 }} {{ none }} {{ true }}"),
            "0.1 1.0 1e+16 1e-05 -4 None True");
  EXPECT_EQ(render("{{ ['a', \"it's\", 1] }} {{ {'k': none} }} {{ ('t',) }}"), "['a', \"it's\", 1] {'k': None} ('t',)");
  EXPECT_EQ(render("{{ {'b': [1, 2.0], 'a': 'é\"'} | tojson }}"), "{\"b\": [1, 2.0], \"a\": \"é\\\"\"}");
  EXPECT_EQ(render("{{ {'a': [1]} | tojson(indent=2) }}"), "{\n  \"a\": [\n    1\n  ]\n}");
  EXPECT_EQ(render("{{ missing }}|{{ missing is defined }}|{{ d.k | default('x') }}", {{"d", json::object()}}),
            "|False|x");
}

TEST(JinjaTemplate, ErrorsNameTheLineAndNothingIsGuessed) {
  const auto message = [](const std::string& source, const json& variables = json::object()) {
    try {
      (void)render(source, variables);
    } catch (const jinja_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("a\n{{ raise_exception('bad role') }}"), "line 2: the template raised an exception: bad role");
  EXPECT_EQ(message("\n\n{% include 'x' %}"), "line 3: {% include %} is not supported in chat templates here");
  EXPECT_EQ(message("{{ x | nosuchfilter }}"), "line 1: no filter named 'nosuchfilter'");
  EXPECT_EQ(message("{{ missing.attr }}"), "line 1: 'missing' is undefined (looking up '.attr')");
  EXPECT_EQ(message("{{ 'a' + 1 }}"), "line 1: unsupported operand type(s) for +: 'str' and 'int'");
  EXPECT_EQ(message("{% if x %}never closed"), "line 1: the template ends where {% elif %} was expected");
  EXPECT_EQ(message("{{ [].append(1) }}"), "line 1: access to attribute 'append' of 'list' object is unsafe");
  EXPECT_EQ(message("{% macro r(n) %}{{ r(n) }}{% endmacro %}{{ r(1) }}"),
            "line 1: macros nested deeper than 200 calls");
}

// Templates that nested or chained without bound overflowed the stack, and out-of-range
// numbers escaped as std::out_of_range (found by tests/fuzz/chat_template_fuzz.cpp).
TEST(JinjaTemplate, DeepNestingAndHugeNumbersAreErrorsNotCrashes) {
  const auto message = render_error;
  const auto repeat = [](const std::string& text, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += text;
    return out;
  };
  const std::string too_many_parts = "line 1: an expression of more than 1000 parts in one tag";
  EXPECT_EQ(message("{{ " + repeat("(", 20000) + "1" + repeat(")", 20000) + " }}"), too_many_parts);
  EXPECT_EQ(message("{{ 1" + repeat(" + 1", 100000) + " }}"), too_many_parts);
  EXPECT_EQ(message("{{ x" + repeat("|trim", 50000) + " }}"), too_many_parts);
  EXPECT_EQ(message("{{ " + repeat("-", 50000) + "1 }}"), too_many_parts);
  EXPECT_EQ(message(repeat("{% if 1 %}", 5000) + "x" + repeat("{% endif %}", 5000)),
            "line 1: blocks nested deeper than 100 levels");
  EXPECT_EQ(message("{% macro m(n) %}" + repeat("{% if n > 0 %}", 98) + "{{ m(n-1) }}" + repeat("{% endif %}", 98) +
                    "{% endmacro %}{{ m(200) }}"),
            "line 1: expressions and blocks nested deeper than 500 levels while rendering");
  EXPECT_EQ(message("{{ x.99999999999999999999999 }}"), "line 1: the integer 99999999999999999999999 is too large");
  EXPECT_EQ(render("{{ 1e999 }} {{ -1e999 }} {{ 1e-999 }}"), "inf -inf 0.0");  // as Python's float()
  EXPECT_EQ(render("{{ " + repeat("(", 400) + "1" + repeat(")", 400) + " }}"), "1");
  // str.split('') looped forever, filling memory (Python raises "ValueError: empty separator").
  EXPECT_EQ(message("{{ 'a b'.split('') }}"), "line 1: split(): empty separator");
  // A positional field past 2^64 let std::stoul's out_of_range escape.
  EXPECT_EQ(message("{{ '{99999999999999999999}'.format(1) }}"),
            "line 1: Too many decimal digits in format string: {99999999999999999999}");
  EXPECT_EQ(message("{{ '{18446744073709551615}'.format(1) }}"),
            "line 1: format string field {18446744073709551615} has no argument");
  EXPECT_EQ(render("{{ '{1}{0}'.format('a', 'b') }}"), "ba");
  EXPECT_EQ(render("{{ 'a,b,c'.split(',', 1) }} {{ ' a  b '.split() }} {{ 'a b'.split(none) }}"),
            "['a', 'b,c'] ['a', 'b'] ['a', 'b']");
}

// Python's integers have no bound; a value past 64 bits was an undefined conversion (UBSan:
// "1e+32 is outside the range of representable values of type 'long'", found by fuzzing) or a
// signed overflow. Now each is an error, and every value within 64 bits is exact, as Python's.
TEST(JinjaTemplate, IntegersBeyond64BitsAreErrorsAndWithinThemExact) {
  EXPECT_EQ(render_error("{{ '99999999999999999999999999999942' | int }}"),
            "line 1: int('99999999999999999999999999999942') does not fit in a 64-bit integer");
  EXPECT_EQ(render_error("{{ 1e32 | int }}"), "line 1: int(1e+32) does not fit in a 64-bit integer");
  EXPECT_EQ(render_error("{{ '-1e19' | int }}"), "line 1: int('-1e19') does not fit in a 64-bit integer");
  EXPECT_EQ(render("{{ '9007199254740993' | int }} {{ ' -9223372036854775808 ' | int }} {{ '+7' | int }}"),
            "9007199254740993 -9223372036854775808 7");
  EXPECT_EQ(render("{{ '3.9' | int }} {{ '1e5' | int }} {{ -2.5 | int }} {{ 'x' | int(5) }} {{ '1e999' | int }}"),
            "3 100000 -2 5 0");  // int(float('1e999')) overflows: the default, as Jinja2
  EXPECT_EQ(render("{{ -9223372036854775807.0 | int }}"), "-9223372036854775808");
  EXPECT_EQ(render_error("{{ 9223372036854775807 | abs }} {{ (-9223372036854775807 - 1) | abs }}"),
            "line 1: abs(-2**63) does not fit in a 64-bit integer");
  EXPECT_EQ(render_error("{{ [9223372036854775807, 1] | sum }}"), "line 1: the sum does not fit in a 64-bit integer");
  EXPECT_EQ(render("{{ [9223372036854775806, 1] | sum }} {{ [true, 2] | sum }} {{ [1, 0.5] | sum }}"),
            "9223372036854775807 3 1.5");
  // round of an integer is exact: halves to even, as Python's round(n, -k)
  EXPECT_EQ(render("{{ 25 | round(-1) }} {{ 35 | round(-1) }} {{ -25 | round(-1) }} {{ 9007199254740993 | round }}"),
            "20 40 -20 9007199254740993");
  EXPECT_EQ(render("{{ 9223372036854775807 | round(-18) }} {{ 5 | round(-400) }} {{ 7 | round(400) }}"),
            "9000000000000000000 0 7");
  EXPECT_EQ(render_error("{{ 9223372036854775807 | round(-19) }}"),
            "line 1: round(9223372036854775807, -19) does not fit in a 64-bit integer");
  EXPECT_EQ(render("{{ 2.5 | round(-400) }} {{ 2.5 | round(400) }} {{ 2.25 | round(1, 'floor') }}"), "0.0 2.5 2.2");
  EXPECT_EQ(render("{% set x = {'a': [7]} %}{{ [x] | map(attribute='a.0') | list }} "
                   "{{ [x] | map(attribute='a.99999999999999999999') | map('default', 'none') | list }}"),
            "[7] ['none']");
}

// A template that builds without bound (a repeated sequence, an indent, its own output, nested
// loops) is refused before it fills memory or runs for hours.
TEST(JinjaTemplate, WhatATemplateBuildsIsBounded) {
  EXPECT_EQ(render_error("{{ ('ab' * 1000000) * 1000000 }}"),
            "line 1: a sequence of 2000000 repeated 1000000 times passes 67108864 characters or items");
  EXPECT_EQ(render("{{ ('ab' * 3) * 2 }}"), "abababababab");
  EXPECT_EQ(render_error("{{ 'a' | indent(1000000000000) }}"), "line 1: indent: a width of more than a million spaces");
  EXPECT_EQ(render_error("{{ ('x\n' * 100000) | indent(1000) }}"),
            "line 1: indent: 100001 lines indented by 1000 characters pass 67108864");
  EXPECT_EQ(render_error("{% for a in range(99999) %}{% for b in range(99999) %}{% endfor %}{% endfor %}"),
            "line 1: more than 100000 loop iterations in one rendering");
  EXPECT_EQ(render("{% for a in range(100) %}{% for b in range(999) %}{% endfor %}{% endfor %}."), ".");
}

// Bounded values and loops still let a template work for minutes: 100,000 iterations of a body
// of filters (45 s under the fuzzer's sanitizers), `unique` over 100,000 items, a search through
// them at every iteration. One budget of steps bounds them all; a thousand messages fit in it.
TEST(JinjaTemplate, TheWorkOfOneRenderingIsBounded) {
  const std::string past = "more than 1000000 steps of work in one rendering";
  EXPECT_NE(
      render_error("{% for a in range(99999) %}{{ [3, 1, 2] | sort | join }}{{ 'ab' | upper }}{% endfor %}").find(past),
      std::string::npos);
  EXPECT_NE(render_error("{{ range(99999) | unique | list | length }}").find(past), std::string::npos);
  EXPECT_NE(render_error("{% set r = range(99999) | list %}{% for i in r %}{{ 99998 in r }}{% endfor %}").find(past),
            std::string::npos);
  EXPECT_EQ(render("{{ range(300) | unique | list | length }}"), "300");
  // a budget of 1000 (the fuzz target renders with less): each iteration takes ten steps (eight,
  // its print and its name)
  EXPECT_EQ(jinja_template("{% for i in range(90) %}{{ i }}{% endfor %}").render({}, 1000).size(), 170U);
  try {
    (void)jinja_template("{% for i in range(200) %}{{ i }}{% endfor %}").render({}, 1000);
    ADD_FAILURE() << "200 iterations took fewer than 1000 steps";
  } catch (const jinja_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 1000 steps of work in one rendering"), std::string::npos)
        << e.what();
  }
  json messages = json::array();
  for (int i = 0; i < 1000; ++i) messages.push_back({{"role", i % 2 == 0 ? "user" : "assistant"}, {"content", "hi"}});
  EXPECT_EQ(render("{% for m in messages %}<|{{ m.role }}|>{{ m.content | trim }}{% if loop.last %}.{% endif %}"
                   "{% endfor %}",
                   {{"messages", messages}})
                .size(),
            std::string("<|user|>hi").size() * 500 + std::string("<|assistant|>hi").size() * 500 + 1);
}

// Every value built from others stays within the bound: 40 MB twice is past it.
TEST(JinjaTemplate, EveryValueBuiltFromOthersStopsAtTheBound) {
#if IRONBENCH_SANITIZED_BUILD
  GTEST_SKIP() << "the release build checks it: values of 40 to 64 MB take 25 s under the sanitizers";
#endif
  EXPECT_EQ(render_error("{% for i in range(100) %}{{ 'x' * 1000000 }}{% endfor %}"),
            "line 1: the rendered text passes 67108864 bytes");
  const std::string big = "{% set big = ('x' * 1000000) * 40 %}";
  const std::string past = " passes 67108864 characters";
  EXPECT_EQ(render_error(big + "{{ big ~ big }}"), "line 1: a concatenation" + past);
  EXPECT_EQ(render_error(big + "{{ big + big }}"), "line 1: a concatenation" + past);
  EXPECT_EQ(render_error(big + "{{ [big, big] | join }}"), "line 1: join" + past);
  EXPECT_EQ(render_error(big + "{{ ''.join([big, big]) }}"), "line 1: join()" + past);
  EXPECT_EQ(render_error(big + "{{ 'aa'.replace('a', big) }}"), "line 1: replace()" + past);
  EXPECT_EQ(render_error(big + "{{ '{0}{0}'.format(big) }}"), "line 1: format()" + past);
  EXPECT_EQ(render_error(big + "{{ [big, big] }}"), "line 1: a list's text" + past);
  EXPECT_EQ(render_error(big + "{{ [big, big, big] | tojson }}"), "line 1: tojson's text" + past);
  EXPECT_EQ(render(big + "{{ (big ~ 'y').endswith('xy') }} {{ 'a-b'.replace('-', '+') }} {{ ['a', 'b'] | join('/') }}"),
            "True a+b a/b");
}

TEST(ChatTemplateFiles, ATokenizerConfigGivesTheTemplateAndItsSpecialTokens) {
  const testing::temp_dir dir;
  const auto config = dir.path() / "tokenizer_config.json";
  std::ofstream(config) << R"({"bos_token": {"content": "<|begin|>", "__type": "AddedToken"}, "eos_token": "<|end|>",
    "chat_template": [{"name": "tool_use", "template": "tools"},
                      {"name": "default", "template": "{{ bos_token }}{% for m in messages %}{{ m.role }}: {{ m.content }}{{ eos_token }}{% endfor %}"}]})";
  std::ofstream(dir.path() / "tokenizer.json") << "{}";
  const auto found = chat_template::find_for_tokenizer(dir.path() / "tokenizer.json");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->path(), config);
  const json messages = json::parse(R"([{"role": "user", "content": "hi"}])");
  EXPECT_EQ(found->render(messages), "<|begin|>user: hi<|end|>");

  // chat_template.jinja beside it comes first (the newer layout)
  std::ofstream(dir.path() / "chat_template.jinja")
      << "[{{ messages[0].content }}]{% if add_generation_prompt %}>{% endif %}";
  EXPECT_EQ(chat_template::find_for_tokenizer(dir.path() / "tokenizer.json")->render(messages), "[hi]>");
  EXPECT_EQ(chat_template::load(dir.path() / "chat_template.jinja").render(messages, false), "[hi]");

  const testing::temp_dir none;
  std::ofstream(none.path() / "tokenizer_config.json") << R"({"bos_token": "<s>"})";
  EXPECT_FALSE(chat_template::find_for_tokenizer(none.path() / "tokenizer.json").has_value());
  EXPECT_THROW((void)chat_template::load(none.path() / "tokenizer_config.json"), usage_error);
  std::ofstream(none.path() / "broken.jinja") << "{% for x in %}";
  try {
    (void)chat_template::load(none.path() / "broken.jinja");
    ADD_FAILURE() << "a broken template loaded";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.jinja cannot be used: line 1: an expression was expected"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ironbench::serve::chat
