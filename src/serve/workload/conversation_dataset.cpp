#include "serve/workload/conversation_dataset.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <random>

#include "core/error.hpp"
#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

// Turn `k`'s body and prompt length, with the answers to turns 0 .. k-1.
turn_request turn_body(const body_settings& body, const conversation& c, std::size_t k,
                       const std::vector<std::string>& answers) {
  turn_request out;
  json messages = json::array();
  std::string text;
  for (std::size_t j = 0; j <= k; ++j) {
    messages.push_back({{"role", "user"}, {"content", c.user_turns[j]}});
    text += "User: " + c.user_turns[j] + "\nAssistant:";
    out.prompt_len += count_words(c.user_turns[j]);
    if (j < k) {
      const auto& answer = j < answers.size() ? answers[j] : std::string();
      messages.push_back({{"role", "assistant"}, {"content", answer}});
      text += answer + "\n";
      out.prompt_len += count_words(answer);
    }
  }
  out.body = body.api == openai_api::chat ? chat_request_body(body, messages, c.max_tokens[k])
                                          : request_body(body, text, c.max_tokens[k]);
  return out;
}

}  // namespace

std::vector<conversation> make_synthetic_conversations(const synthetic_conversations& s, std::size_t count,
                                                       std::uint64_t seed) {
  if (s.turns < 1 || s.user_len < 1 || s.output_len < 1 || s.think_s < 0) {
    throw usage_error("conversation dataset: turns and lengths must be positive and the think time not negative");
  }
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::size_t> word(0, std::size(one_token_words) - 1);
  std::vector<conversation> out(count);
  for (auto& c : out) {
    for (int t = 0; t < s.turns; ++t) {
      std::string text;
      for (std::int64_t w = 0; w < s.user_len; ++w) text += one_token_words[word(random)];
      c.user_turns.push_back(text.substr(1));  // without the leading space
      c.max_tokens.push_back(s.output_len);
    }
  }
  return out;
}

std::vector<conversation> read_sharegpt_conversations(const std::string& path, std::int64_t fixed_output_len,
                                                      std::size_t count, std::uint64_t seed,
                                                      const bpe_tokenizer* tokenizer) {
  const auto data = read_sharegpt_file(path);
  const auto length = [&](const std::string& text) { return text_length(text, tokenizer); };
  std::vector<conversation> all;
  for (const auto& entry : data) {
    if (!entry.is_object() || !entry.contains("conversations") || !entry.at("conversations").is_array()) continue;
    const auto& turns = entry.at("conversations");
    conversation c;
    for (std::size_t i = 0; i < turns.size(); ++i) {
      const auto& t = turns[i];
      if (!t.is_object() || !t.contains("value") || !t.at("value").is_string()) continue;
      const auto from = t.value("from", "");
      if (from != "human" && from != "user") continue;
      std::int64_t reply = fixed_output_len;
      if (reply <= 0 && i + 1 < turns.size() && turns[i + 1].is_object() && turns[i + 1].contains("value") &&
          turns[i + 1].at("value").is_string()) {
        reply = length(turns[i + 1].at("value").get<std::string>());
      }
      c.user_turns.push_back(t.at("value").get<std::string>());
      c.max_tokens.push_back(std::max<std::int64_t>(4, reply));
    }
    if (!c.user_turns.empty()) all.push_back(std::move(c));
  }
  if (all.empty()) throw usage_error(fmt::format("{}: no conversation has a human turn", path));
  std::mt19937_64 random(seed);
  std::shuffle(all.begin(), all.end(), random);
  std::vector<conversation> out;
  for (std::size_t i = 0; out.size() < count; ++i) out.push_back(all[i % all.size()]);
  return out;
}

std::vector<prepared_request> conversation_requests(const std::vector<conversation>& conversations,
                                                    const body_settings& body, double think_s) {
  std::vector<prepared_request> out;
  for (std::size_t k = 0; k < conversations.size(); ++k) {
    const auto shared = std::make_shared<conversation>(conversations[k]);
    for (std::size_t t = 0; t < shared->user_turns.size(); ++t) {
      prepared_request r;
      const auto first = turn_body(body, *shared, t, {});
      r.body = first.body;
      r.prompt_len = first.prompt_len;
      r.max_tokens = shared->max_tokens[t];
      r.session = k;
      r.turn = static_cast<int>(t);
      r.think_s = think_s;
      r.body_for_answers = [body, shared, t](const std::vector<std::string>& answers) {
        return turn_body(body, *shared, t, answers);
      };
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace ironbench::serve
