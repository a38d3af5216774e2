#include "serve/client/sse_parser.hpp"

namespace ironbench::serve {

void sse_parser::feed(std::string_view bytes) {
  bytes_ += bytes.size();
  if (bytes.empty()) return;  // an empty read must not forget a CR that a LF may complete
  std::size_t start = 0;
  if (last_was_cr_ && !bytes.empty() && bytes.front() == '\n') start = 1;  // CRLF split across chunks
  last_was_cr_ = false;
  for (std::size_t i = start; i < bytes.size(); ++i) {
    const char c = bytes[i];
    if (c != '\n' && c != '\r') continue;
    if (pending_.empty()) {
      line(bytes.substr(start, i - start));
    } else {
      pending_.append(bytes.substr(start, i - start));
      line(pending_);
      pending_.clear();
      // A huge line (one enormous event) must not keep its buffer for the rest of the stream.
      if (pending_.capacity() > kept_line_capacity) std::string().swap(pending_);
    }
    if (c == '\r') {
      if (i + 1 < bytes.size()) {
        if (bytes[i + 1] == '\n') ++i;
      } else {
        last_was_cr_ = true;
      }
    }
    start = i + 1;
  }
  pending_.append(bytes.substr(start));
}

void sse_parser::line(std::string_view text) {
  if (text.empty()) {  // dispatch
    if (has_data_) {
      if (!current_.data.empty() && current_.data.back() == '\n') current_.data.pop_back();
      on_event_(current_);
    }
    current_ = {};
    has_data_ = false;
    in_event_ = false;
    return;
  }
  if (text.front() == ':') return;  // comment (keep-alive)
  const auto colon = text.find(':');
  std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  in_event_ = true;
  if (field == "data") {
    current_.data.append(value);
    current_.data.push_back('\n');
    has_data_ = true;
  } else if (field == "event") {
    current_.event = std::string(value);
  } else if (field == "id") {
    current_.id = std::string(value);
  }
}

bool sse_parser::finish() {
  const bool truncated = in_event_ || !pending_.empty();
  pending_.clear();
  current_ = {};
  has_data_ = false;
  in_event_ = false;
  return truncated;
}

}  // namespace ironbench::serve
