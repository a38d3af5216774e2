// libFuzzer target of the server-sent events parser (src/serve/client/sse_parser.hpp). The input is
// parsed twice: whole, and fed in pieces whose lengths come from its first bytes. Aborts when
// the two parses disagree (the parser promises the same events for any split of the stream),
// when a field holds a line break it should have split at, or when the byte count is wrong.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "serve/client/sse_parser.hpp"

namespace {

struct sse_parse {
  std::vector<ironbench::serve::sse_event> events;
  bool truncated = false;
  std::size_t bytes = 0;
};

sse_parse parse_in_pieces(std::string_view stream, std::string_view piece_lengths) {
  sse_parse out;
  ironbench::serve::sse_parser parser([&](const ironbench::serve::sse_event& e) { out.events.push_back(e); });
  std::size_t next_length = 0;
  while (!stream.empty()) {
    // Pieces of 0 to 16 bytes, as the lengths say (an empty read, as a socket may give, between
    // a CR and its LF once split a line in two); the whole stream when no lengths are given.
    std::size_t length = stream.size();
    if (!piece_lengths.empty()) {
      length = static_cast<unsigned char>(piece_lengths[next_length++ % piece_lengths.size()]) % 17;
    }
    if (length == 0) {
      parser.feed({});  // an empty read, then at least one byte: the stream always advances
      length = 1;
    }
    length = std::min(length, stream.size());
    parser.feed(stream.substr(0, length));
    stream.remove_prefix(length);
  }
  out.truncated = parser.finish();
  out.bytes = parser.bytes();
  return out;
}

bool same_events(const sse_parse& a, const sse_parse& b) {
  if (a.events.size() != b.events.size() || a.truncated != b.truncated) return false;
  for (std::size_t i = 0; i < a.events.size(); ++i) {
    if (a.events[i].event != b.events[i].event || a.events[i].data != b.events[i].data ||
        a.events[i].id != b.events[i].id) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // The first byte says how many of the following bytes are piece lengths.
  const std::size_t length_bytes = input.empty() ? 0 : std::min<std::size_t>(input[0] & 7, input.size() - 1);
  const std::string_view lengths = input.substr(input.empty() ? 0 : 1, length_bytes);
  const std::string_view stream = input.substr(input.empty() ? 0 : 1 + length_bytes);

  const auto whole = parse_in_pieces(stream, {});
  const auto pieces = parse_in_pieces(stream, lengths);
  if (!same_events(whole, pieces)) std::abort();
  if (whole.bytes != stream.size() || pieces.bytes != stream.size()) std::abort();
  for (const auto& e : whole.events) {
    if (e.event.find_first_of("\r\n") != std::string::npos || e.id.find_first_of("\r\n") != std::string::npos ||
        e.data.find('\r') != std::string::npos) {
      std::abort();
    }
  }
  return 0;
}
