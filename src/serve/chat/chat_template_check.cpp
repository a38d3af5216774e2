#include "serve/chat/chat_template_check.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace ironbench::serve::chat {

void require_rendered_content(const chat_template& chat_template) {
  static constexpr const char* marker = "ironbench7chat7template7probe";
  std::string text;
  try {
    text = chat_template.render(json::array({{{"role", "user"}, {"content", marker}}}), true);
  } catch (const jinja_error&) {
    return;
  }
  if (text.find(marker) == std::string::npos) {
    throw usage_error(
        fmt::format("--chat-template: {} renders a conversation without its messages' text ({}): its prompts would "
                    "count no input tokens",
                    chat_template.path().string(), text.empty() ? "the text is empty" : "the content is left out"));
  }
}

}  // namespace ironbench::serve::chat
