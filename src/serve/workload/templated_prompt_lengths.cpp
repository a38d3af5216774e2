#include "serve/workload/templated_prompt_lengths.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/json.hpp"

namespace ironbench::serve::chat {
namespace {

// The tokens of the body's messages through the template; nullopt for a body without messages.
std::optional<std::int64_t> templated_length(const std::string& body, const chat_template& chat,
                                             const bpe_tokenizer& tokenizer) {
  const auto parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("messages")) return std::nullopt;
  return static_cast<std::int64_t>(tokenizer.count(chat.render(parsed["messages"], true)));
}

}  // namespace

void count_templated_prompts(std::vector<prepared_request>& requests, std::shared_ptr<const chat_template> chat,
                             const bpe_tokenizer& tokenizer) {
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto& r = requests[i];
    try {
      if (const auto length = templated_length(r.body, *chat, tokenizer)) r.prompt_len = *length;
    } catch (const jinja_error& e) {
      throw usage_error(fmt::format("the chat template {} fails on the messages of request {}: {}",
                                    chat->path().string(), i + 1, e.what()));
    }
    if (!r.body_for_answers) continue;
    r.body_for_answers = [made = std::move(r.body_for_answers), chat,
                          &tokenizer](const std::vector<std::string>& answers) {
      auto turn = made(answers);
      // A later turn has the first turn's roles in the same alternation: a template that rendered
      // the first renders it. Should it still fail, the turn keeps the count of its words.
      try {
        if (const auto length = templated_length(turn.body, *chat, tokenizer)) turn.prompt_len = *length;
      } catch (const jinja_error&) {
      }
      return turn;
    };
  }
}

}  // namespace ironbench::serve::chat
