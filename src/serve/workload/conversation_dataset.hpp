// Multi-turn conversations: each conversation is a session whose turns are sent in order, each
// carrying the whole history so far (the user's earlier turns and the server's actual answers:
// what a chat application sends, and what a server's prefix cache can reuse), after the
// user's think time. From ShareGPT's full conversations (every human turn) or generated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serve/client/load_generator.hpp"
#include "serve/tokenizer/bpe_tokenizer.hpp"
#include "serve/workload/datasets.hpp"

namespace ironbench::serve {

/// One conversation: what the user says at each turn and the tokens asked for in reply.
struct conversation {
  std::vector<std::string> user_turns;
  std::vector<std::int64_t> max_tokens;  ///< one per turn
};

/// Generated conversations: `turns` turns of `user_len` one-token words each, `output_len`
/// tokens asked for per answer.
struct synthetic_conversations {
  int turns = 5;
  std::int64_t user_len = 64;
  std::int64_t output_len = 64;
  double think_s = 0;  ///< the user's pause after each answer
};

[[nodiscard]] std::vector<conversation> make_synthetic_conversations(const synthetic_conversations& settings,
                                                                     std::size_t count, std::uint64_t seed);

/// ShareGPT's conversations with every human turn ("from": "human" or "user"), each turn asking
/// for the length of the reference reply after it (or `fixed_output_len` when positive; at
/// least 4), in a seeded shuffle, reused in order when the file has fewer than `count`.
/// Lengths come from `tokenizer` (word counts without one). usage_error when none has a turn.
[[nodiscard]] std::vector<conversation> read_sharegpt_conversations(const std::string& path,
                                                                    std::int64_t fixed_output_len, std::size_t count,
                                                                    std::uint64_t seed, const bpe_tokenizer* tokenizer);

/// The requests of `conversations`: conversation k is session k, its turns in order. A turn's
/// body has the history so far: on /v1/chat/completions the messages (user, assistant, ...,
/// user), on /v1/completions the text "User: ...\nAssistant: ...\nUser: ...\nAssistant:".
/// Prompt lengths count the words of that history.
[[nodiscard]] std::vector<prepared_request> conversation_requests(const std::vector<conversation>& conversations,
                                                                  const body_settings& body, double think_s);

}  // namespace ironbench::serve
