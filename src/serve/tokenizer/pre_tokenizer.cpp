#include "serve/tokenizer/pre_tokenizer.hpp"

#include "serve/tokenizer/utf8_text.hpp"

namespace ironbench::serve::tokenization {

void pre_tokenize(const pre_tokenizer& step, const std::vector<std::string>& byte_map, std::vector<piece>& pieces) {
  std::vector<piece> next;
  for (auto& p : pieces) {
    switch (step.type) {
      case pre_tokenizer::kind::byte_level: {
        if (step.add_prefix_space && p.text.front() != ' ') p.text.insert(0, " ");
        std::vector<piece> words;
        if (step.pattern) {
          split_piece(p, step.pattern->matches(p.text), split_behavior::isolated, false, words);
        } else {
          words.push_back(std::move(p));
        }
        for (auto& w : words) {
          std::string mapped;
          for (const unsigned char c : w.text) mapped += byte_map[c];
          next.push_back({std::move(mapped), w.at_start});
        }
        break;
      }
      case pre_tokenizer::kind::split:
        split_piece(p, step.pattern ? step.pattern->matches(p.text) : literal_matches(p.text, step.literal),
                    step.behavior, step.invert, next);
        break;
      case pre_tokenizer::kind::whitespace_split:
        split_piece(p,
                    char_matches(p.text, [](std::string_view c) { return is_whitespace(code_point(c, 0, c.size())); }),
                    split_behavior::removed, false, next);
        break;
      case pre_tokenizer::kind::metaspace: {
        std::string text;
        for (const char c : p.text) {
          if (c == ' ') {
            text += step.replacement;
          } else {
            text.push_back(c);
          }
        }
        const bool prepend =
            step.prepend == prepend_scheme::always || (step.prepend == prepend_scheme::first && p.at_start);
        if (prepend && text.compare(0, step.replacement.size(), step.replacement) != 0)
          text.insert(0, step.replacement);
        piece replaced{std::move(text), p.at_start};
        if (step.split) {
          split_piece(replaced, literal_matches(replaced.text, step.replacement), split_behavior::merged_with_next,
                      false, next);
        } else {
          next.push_back(std::move(replaced));
        }
        break;
      }
    }
  }
  pieces = std::move(next);
}

}  // namespace ironbench::serve::tokenization
