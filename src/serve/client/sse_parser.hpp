// Server-sent events (the WHATWG EventSource format) parsed incrementally from the bytes of a
// streaming HTTP response, as they arrive in any split: lines end in LF, CRLF or CR; lines
// starting with ':' are comments; an event's "data" lines are joined with '\n' and the event
// is dispatched at the blank line that ends it. Lines may be of any length.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ironbench::serve {

/// One dispatched event.
struct sse_event {
  std::string event;  ///< the "event:" field, empty for the default ("message")
  std::string data;   ///< the "data:" lines joined with '\n'
  std::string id;
};

class sse_parser {
 public:
  using event_callback = std::function<void(const sse_event&)>;

  explicit sse_parser(event_callback on_event) : on_event_(std::move(on_event)) {}

  /// Parses the next bytes of the stream; calls the callback for every event they complete.
  void feed(std::string_view bytes);

  /// The stream ended: an event whose blank line never came is dropped, as EventSource does.
  /// Returns whether the stream ended in the middle of an event (a truncated stream).
  [[nodiscard]] bool finish();

  /// Bytes received so far.
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void line(std::string_view text);

  static constexpr std::size_t kept_line_capacity = std::size_t{1} << 20;

  event_callback on_event_;
  std::string pending_;       // the current, unfinished line
  bool last_was_cr_ = false;  // a CR ended the previous chunk: skip a leading LF
  sse_event current_;
  bool has_data_ = false;
  bool in_event_ = false;  // some field of the current event was seen
  std::size_t bytes_ = 0;
};

}  // namespace ironbench::serve
