#include "serve/chat/chat_template.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/bounded_file.hpp"
#include "core/error.hpp"

namespace ironbench::serve::chat {
namespace {

std::string read_text(const std::filesystem::path& path) {
  return core::read_bounded_file(path.string(), core::file_kinds::chat_template);
}

json read_config(const std::filesystem::path& path) {
  try {
    return json::parse(read_text(path));
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{} is not valid JSON: {}", path.string(), e.what()));
  }
}

// A special token is a string or an AddedToken {"content": ...}.
std::optional<std::string> token_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("content") && value["content"].is_string()) {
    return value["content"].get<std::string>();
  }
  return std::nullopt;
}

// What transformers' special_tokens_map gives the template: bos_token, eos_token ... as text
// (transformers 5 passes only these named ones).
jinja_dict special_tokens_of(const json& config) {
  jinja_dict tokens;
  for (const char* name :
       {"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}) {
    if (!config.contains(name)) continue;
    if (const auto text = token_text(config[name])) tokens.set(name, *text);
  }
  return tokens;
}

std::optional<std::string> template_in_config(const json& config) {
  if (!config.contains("chat_template")) return std::nullopt;
  const auto& value = config["chat_template"];
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {  // named templates: "default" is the one for plain chat
    for (const auto& entry : value) {
      if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
          entry["template"].is_string()) {
        return entry["template"].get<std::string>();
      }
    }
  }
  return std::nullopt;
}

}  // namespace

chat_template::chat_template(std::filesystem::path path, const std::string& source, jinja_dict special_tokens)
    : path_(std::move(path)), special_tokens_(std::move(special_tokens)) {
  try {
    template_ = std::make_shared<const jinja_template>(source);
  } catch (const jinja_error& e) {
    throw usage_error(fmt::format("the chat template of {} cannot be used: {}", path_.string(), e.what()));
  }
}

chat_template chat_template::load(const std::filesystem::path& path) {
  if (path.extension() == ".json") {
    const auto config = read_config(path);
    const auto source = template_in_config(config);
    if (!source) throw usage_error(fmt::format("{} has no \"chat_template\"", path.string()));
    return {path, *source, special_tokens_of(config)};
  }
  const auto config_path = path.parent_path() / "tokenizer_config.json";
  jinja_dict special_tokens;
  if (std::filesystem::exists(config_path)) special_tokens = special_tokens_of(read_config(config_path));
  return {path, read_text(path), std::move(special_tokens)};
}

chat_template chat_template::from_text(const std::string& source, const json& special_tokens) {
  return {"(text)", source, special_tokens_of(special_tokens)};
}

std::optional<chat_template> chat_template::find_for_tokenizer(const std::filesystem::path& tokenizer_json) {
  const auto folder = tokenizer_json.parent_path();
  if (std::filesystem::exists(folder / "chat_template.jinja")) return load(folder / "chat_template.jinja");
  const auto config_path = folder / "tokenizer_config.json";
  if (!std::filesystem::exists(config_path)) return std::nullopt;
  const auto config = read_config(config_path);
  const auto source = template_in_config(config);
  if (!source) return std::nullopt;
  return chat_template(config_path, *source, special_tokens_of(config));
}

std::string chat_template::render(const json& messages, bool add_generation_prompt, std::int64_t max_steps) const {
  jinja_dict variables = special_tokens_;
  variables.set("messages", jinja_value::from_json(messages));
  variables.set("tools", jinja_value::none());
  variables.set("documents", jinja_value::none());
  variables.set("add_generation_prompt", add_generation_prompt);
  return template_->render(variables, max_steps);
}

}  // namespace ironbench::serve::chat
