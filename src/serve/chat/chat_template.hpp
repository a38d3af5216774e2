// A model's chat template: the Jinja template in its Hugging Face files that turns chat
// messages into the prompt text the server tokenizes (tokenizer_config.json's "chat_template",
// or chat_template.jinja), with the special tokens it is rendered with. `serve` renders it to
// count the prompt tokens of /v1/chat/completions requests as the server does.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/json.hpp"
#include "serve/chat/jinja_template.hpp"

namespace ironbench::serve::chat {

class chat_template {
 public:
  /// From `path`: a tokenizer_config.json (its "chat_template", a string or a list of
  /// {"name", "template"} of which "default" is taken) or a Jinja file (.jinja); special tokens
  /// from the tokenizer_config.json beside it. Throws usage_error naming the file and what is
  /// wrong (unreadable, no template, a syntax error with its line).
  static chat_template load(const std::filesystem::path& path);

  /// A template given as text, rendered with `special_tokens` ({"bos_token": "<s>", ...}).
  /// usage_error on a syntax error.
  static chat_template from_text(const std::string& source, const json& special_tokens);

  /// The chat template that belongs with `tokenizer_json` (chat_template.jinja beside it, else
  /// the "chat_template" of tokenizer_config.json beside it); nullopt when there is none.
  static std::optional<chat_template> find_for_tokenizer(const std::filesystem::path& tokenizer_json);

  /// The prompt text for `messages` (a JSON list of {"role", "content", ...}), as
  /// transformers' apply_chat_template(messages, tokenize=False, add_generation_prompt=...)
  /// renders it, in at most `max_steps` steps of work (jinja_work.hpp). Throws jinja_error when
  /// the template fails on them.
  [[nodiscard]] std::string render(const json& messages, bool add_generation_prompt = true,
                                   std::int64_t max_steps = jinja_max_steps) const;

  /// Where the template came from.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  chat_template(std::filesystem::path path, const std::string& source, jinja_dict special_tokens);

  std::filesystem::path path_;
  std::shared_ptr<const jinja_template> template_;
  jinja_dict special_tokens_;
};

}  // namespace ironbench::serve::chat
