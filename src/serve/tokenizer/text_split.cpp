#include "serve/tokenizer/text_split.hpp"

#include <algorithm>

namespace ironbench::serve::tokenization {

// Matches and the gaps between them, in order, as Pattern::find_matches gives them.
std::vector<span> spans_of(std::string_view text, const byte_ranges& matches) {
  std::vector<span> out;
  std::size_t previous = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > previous) out.push_back({previous, begin, false});
    out.push_back({begin, end, true});
    previous = end;
  }
  if (previous < text.size()) out.push_back({previous, text.size(), false});
  return out;
}

byte_ranges literal_matches(std::string_view text, std::string_view literal) {
  byte_ranges out;
  if (literal.empty()) return out;
  for (auto at = text.find(literal); at != std::string_view::npos; at = text.find(literal, at + literal.size())) {
    out.emplace_back(at, at + literal.size());
  }
  return out;
}

// The ranges to keep of `spans` under `behavior` (Removed drops the matches).
byte_ranges apply_behavior(const std::vector<span>& spans, split_behavior behavior) {
  byte_ranges out;
  switch (behavior) {
    case split_behavior::removed:
      for (const auto& s : spans)
        if (!s.match) out.emplace_back(s.begin, s.end);
      break;
    case split_behavior::isolated:
      for (const auto& s : spans) out.emplace_back(s.begin, s.end);
      break;
    case split_behavior::contiguous: {
      bool previous_match = false;
      for (const auto& s : spans) {
        if (s.match == previous_match && !out.empty()) {
          out.back().second = s.end;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    }
    case split_behavior::merged_with_previous: {
      bool previous_match = false;
      for (const auto& s : spans) {
        if (s.match && !previous_match && !out.empty()) {
          out.back().second = s.end;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      break;
    }
    case split_behavior::merged_with_next: {
      bool previous_match = false;
      for (std::size_t k = spans.size(); k-- > 0;) {
        const auto& s = spans[k];
        if (s.match && !previous_match && !out.empty()) {
          out.back().first = s.begin;
        } else {
          out.emplace_back(s.begin, s.end);
        }
        previous_match = s.match;
      }
      std::reverse(out.begin(), out.end());
      break;
    }
  }
  return out;
}

void split_piece(const piece& p, const byte_ranges& matches, split_behavior behavior, bool invert,
                 std::vector<piece>& out) {
  auto spans = spans_of(p.text, matches);
  if (invert)
    for (auto& s : spans) s.match = !s.match;
  for (const auto& [begin, end] : apply_behavior(spans, behavior)) {
    if (end > begin) out.push_back({p.text.substr(begin, end - begin), p.at_start && begin == 0});
  }
}

}  // namespace ironbench::serve::tokenization
