// A chat template that leaves the messages' text out of the prompt cannot count prompts.
#include "serve/chat/chat_template_check.hpp"

#include <gtest/gtest.h>

#include "usage_message.hpp"

namespace ironbench::serve::chat {
namespace {

using testing::usage_message;

TEST(ChatTemplateCheck, AnEmptyTemplateOrOneWithoutTheContentIsRefused) {
  const auto empty = chat_template::from_text("", json::object());
  const auto message = usage_message([&] { require_rendered_content(empty); });
  EXPECT_NE(message.find("renders a conversation without its messages' text (the text is empty)"), std::string::npos)
      << message;
  const auto roles_only = chat_template::from_text("{% for m in messages %}<{{ m.role }}>{% endfor %}", json::object());
  EXPECT_NE(usage_message([&] { require_rendered_content(roles_only); }).find("the content is left out"),
            std::string::npos);
  const auto good = chat_template::from_text(
      "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<|assistant|>"
      "{% endif %}",
      json::object());
  EXPECT_EQ(usage_message([&] { require_rendered_content(good); }), "no usage_error");
  // One that fails on the probe reports its error on the real prompts instead.
  const auto failing = chat_template::from_text("{{ raise_exception('no') }}", json::object());
  EXPECT_EQ(usage_message([&] { require_rendered_content(failing); }), "no usage_error");
}

}  // namespace
}  // namespace ironbench::serve::chat
