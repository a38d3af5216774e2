// Small text and process helpers shared by the serving client and serve-sim.
#pragma once

#include <cstdint>
#include <string_view>

namespace ironbench::serve {

/// Words that common BPE tokenizers encode as one token each (with their leading space): the
/// text of random chat prompts and of serve-sim's output.
inline constexpr const char* one_token_words[] = {" the", " of", " and", " to",   " in", " is", " that", " for",
                                                  " it",  " as", " was", " with", " be", " on", " not",  " he"};

/// Whitespace-separated words of `text`: the token count used where no tokenizer is given.
[[nodiscard]] std::int64_t count_words(std::string_view text);

/// Raises this process's open-file limit to its hard limit (one socket per stream).
void raise_open_file_limit();

}  // namespace ironbench::serve
