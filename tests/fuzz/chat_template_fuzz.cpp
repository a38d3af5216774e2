// libFuzzer target of the chat template renderer (src/serve/chat/chat_template.hpp): the input
// is a Jinja chat template's source, compiled with the usual special tokens and rendered for a
// fixed conversation (system, user, assistant, user turns), with the generation prompt when
// the input's length is odd (once an input: rendering is most of a run's time), in at most
// 5 000 steps of work: a two-hundredth of the production budget (jinja_work.hpp) and 2.6 times
// the most a real model's template takes (1 900 steps), since the inputs that run into the budget
// take most of the time: in a sample of a grown corpus, 2 % took 72 % of it with 100 000 steps,
// 4 % took 82 % with 20 000; the sample ran in 6.5, 2.5 and 1.3 s with 100 000, 20 000 and 5 000.
// usage_error (a syntax error) and jinja_error (a template that fails on these messages:
// raise_exception, a type error, something unsupported, a bound passed) are expected answers;
// any other exception escaping, a crash or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/json.hpp"
#include "serve/chat/chat_template.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ironbench::json special_tokens = {
      {"bos_token", "<s>"}, {"eos_token", "</s>"}, {"unk_token", "<unk>"}, {"pad_token", nullptr}};
  static const ironbench::json messages = ironbench::json::parse(R"([
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Hello, {{ name }}! \u00e9t\u00e9 <|im_start|>"},
    {"role": "assistant", "content": "Hi.\n"},
    {"role": "user", "content": ""}
  ])");
  const std::string source(reinterpret_cast<const char*>(data), size);
  try {
    const auto chat = ironbench::serve::chat::chat_template::from_text(source, special_tokens);
    (void)chat.render(messages, size % 2 == 1, 5000);
  } catch (const ironbench::usage_error&) {
  } catch (const ironbench::serve::chat::jinja_error&) {
  }
  return 0;
}
