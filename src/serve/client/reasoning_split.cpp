#include "serve/client/reasoning_split.hpp"

#include <algorithm>

namespace ironbench::serve {
namespace {

constexpr std::string_view open_tag = "<think>";
constexpr std::string_view close_tag = "</think>";

// The length of the longest end of `text` that is a proper start of `tag` (a tag that may be
// completed by the next event).
std::size_t partial_tag_suffix(std::string_view text, std::string_view tag) {
  for (std::size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (text.substr(text.size() - n) == tag.substr(0, n)) return n;
  }
  return 0;
}

}  // namespace

const char* reasoning_style_name(reasoning_field field) {
  switch (field) {
    case reasoning_field::reasoning_content: return "reasoning_content";
    case reasoning_field::reasoning: return "reasoning";
    case reasoning_field::none: break;
  }
  return "think_tags";
}

void reasoning_tracker::note_style(const char* style) {
  if (style_.empty()) style_ = style;
}

void reasoning_tracker::count_event(std::size_t event, bool reasoning) {
  auto& last = reasoning ? last_reasoning_event_ : last_answer_event_;
  if (event <= last) return;
  last = event;
  ++(reasoning ? reasoning_events_ : answer_events_);
}

void reasoning_tracker::on_event(double time_s, std::string_view reasoning, reasoning_field field,
                                 std::string_view content) {
  ++events_;
  if (!reasoning.empty()) {
    fields_seen_ = true;
    note_style(reasoning_style_name(field));
    if (!first_reasoning_s_) first_reasoning_s_ = time_s;
    count_event(events_, true);
    if (keep_text_) field_text_.append(reasoning);
  }
  if (content.empty()) return;
  marks_.push_back({pending_.size(), time_s, events_});
  pending_.append(content);
  process();
}

void reasoning_tracker::classify(std::size_t bytes, bool reasoning) {
  if (bytes == 0) return;
  const double time_s = marks_.front().time_s;
  if (reasoning) {
    content_reasoning_bytes_ = consumed_ + bytes;
    if (!first_reasoning_s_) first_reasoning_s_ = time_s;
  } else if (!first_answer_s_) {
    first_answer_s_ = time_s;
  }
  std::vector<mark> rest;
  for (std::size_t k = 0; k < marks_.size(); ++k) {
    const std::size_t end = k + 1 < marks_.size() ? marks_[k + 1].offset : pending_.size();
    if (marks_[k].offset < bytes) count_event(marks_[k].event, reasoning);
    if (end <= bytes) continue;  // all of this event's bytes are classified
    mark m = marks_[k];
    m.offset = m.offset > bytes ? m.offset - bytes : 0;
    rest.push_back(m);
  }
  marks_ = std::move(rest);
  pending_.erase(0, bytes);
  consumed_ += bytes;
}

// `</think>` without an opening tag: the content so far was reasoning.
void reasoning_tracker::reclassify_answer_as_reasoning() {
  if (first_answer_s_ && (!first_reasoning_s_ || *first_answer_s_ < *first_reasoning_s_)) {
    first_reasoning_s_ = first_answer_s_;
  }
  first_answer_s_.reset();
  reasoning_events_ += answer_events_;
  answer_events_ = 0;
  last_reasoning_event_ = std::max(last_reasoning_event_, last_answer_event_);
  last_answer_event_ = 0;
  content_reasoning_bytes_ = consumed_;
}

void reasoning_tracker::process() {
  while (!pending_.empty()) {
    switch (phase_) {
      case phase::start: {
        const auto first = pending_.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) return;  // only whitespace so far: a tag may follow
        const std::string_view rest = std::string_view(pending_).substr(first);
        if (rest.substr(0, open_tag.size()) == open_tag) {
          note_style("think_tags");
          classify(first + open_tag.size(), true);
          phase_ = phase::thinking;
          continue;
        }
        if (rest.size() < open_tag.size() && open_tag.substr(0, rest.size()) == rest) return;  // "<thi"
        phase_ = fields_seen_ ? phase::answer : phase::tentative_answer;
        continue;
      }
      case phase::thinking:
      case phase::tentative_answer: {
        const auto at = pending_.find(close_tag);
        if (at != std::string::npos) {
          if (phase_ == phase::tentative_answer) {
            note_style("think_tags");
            reclassify_answer_as_reasoning();
          }
          classify(at + close_tag.size(), true);
          phase_ = phase::answer;
          continue;
        }
        const auto held = partial_tag_suffix(pending_, close_tag);
        classify(pending_.size() - held, phase_ == phase::thinking);
        return;
      }
      case phase::answer: classify(pending_.size(), false); return;
    }
  }
}

void reasoning_tracker::finish() {
  classify(pending_.size(), phase_ == phase::thinking);
  if (phase_ == phase::start) phase_ = phase::answer;
}

}  // namespace ironbench::serve
