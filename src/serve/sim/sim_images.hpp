// How serve-sim counts the images of a chat request (OpenAI image_url content parts holding
// data URLs of PNG or JPEG files): an image of W x H pixels is ceil(W / 28) x ceil(H / 28)
// prompt tokens, Qwen2-VL's count of 14-pixel patches merged 2 x 2, taken at the image's own
// size (no resizing, no vision start/end tokens). A text part counts its whitespace-separated
// words, as every other prompt does. An image_url that is not a data URL of a PNG or JPEG
// whose size can be read is refused (HTTP 400 naming it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace ironbench::serve {

/// ceil(width / 28) x ceil(height / 28).
[[nodiscard]] std::int64_t sim_image_tokens(int width, int height);

/// The pixel size of a PNG (IHDR) or JPEG (its SOF marker) file; empty for anything else.
struct image_size {
  int width = 0, height = 0;
};
[[nodiscard]] std::optional<image_size> sim_image_file_size(std::string_view file);

/// The images of a chat request's messages and the tokens they count for.
struct sim_image_count {
  std::int64_t images = 0;
  std::int64_t tokens = 0;
  std::int64_t text_words = 0;  ///< words of the text parts of content lists
  std::string error;            ///< not empty: an image that cannot be read
};

/// Counts the content parts of every message of `body` (a chat request); string contents are
/// not counted here (sim_prompt_tokens counts them).
[[nodiscard]] sim_image_count count_sim_images(const json& body);

}  // namespace ironbench::serve
