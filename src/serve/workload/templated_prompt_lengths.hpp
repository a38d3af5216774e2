// The prompt lengths of chat requests as the server counts them: the messages rendered through
// the model's chat template (serve/chat/chat_template.hpp) and tokenized, role markers and
// special tokens included.
#pragma once

#include <memory>
#include <vector>

#include "serve/chat/chat_template.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"

namespace ironbench::serve::chat {

/// Sets the prompt_len of each request whose body has "messages" to the tokens of
/// `chat`.render(messages) (with the generation prompt) in `tokenizer`; the later turns of
/// conversations, made when they are sent, are counted the same way then. `tokenizer` must
/// outlive the requests. Throws usage_error naming the request when the template fails on its
/// messages (the server would refuse it too).
void count_templated_prompts(std::vector<prepared_request>& requests, std::shared_ptr<const chat_template> chat,
                             const bpe_tokenizer& tokenizer);

}  // namespace ironbench::serve::chat
