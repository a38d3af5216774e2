// A chat template that prompts are counted through must put the messages' text in the prompt:
// an empty template (or one that drops the content) would count zero input tokens while the
// server prefills thousands.
#pragma once

#include "serve/chat/chat_template.hpp"

namespace ironbench::serve::chat {

/// Renders a one-message conversation ({"role": "user", "content": a marker word}) with
/// `chat_template`; usage_error naming its file when the marker is not in the text ("renders
/// a conversation without its messages' text"). A template that fails on that conversation
/// passes: it reports its error on the prompts themselves.
void require_rendered_content(const chat_template& chat_template);

}  // namespace ironbench::serve::chat
