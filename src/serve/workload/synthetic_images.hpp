// Synthetic images for multimodal chat prompts (--images-per-request N --image-size WxH
// --image-format png|jpeg): noise pixels made in memory, deterministic from the seed, the
// request and the image's place in it (no two images of a run alike, so a server's cache of
// processed images does not hide their cost), encoded as PNG (zlib) or JPEG (libjpeg-turbo,
// where ironbench was built with it) and sent as data URLs in OpenAI's image_url content parts
// beside the prompt's text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "serve/client/load_generator.hpp"

namespace ironbench::serve {

struct image_settings {
  int per_request = 0;  ///< 0: no images
  int width = 0, height = 0;
  std::string format = "png";  ///< png or jpeg
};

/// Parses "WxH" (e.g. 512x512; each side 1 to 8192); usage_error otherwise.
void parse_image_size(const std::string& text, image_settings& settings);

/// Checks the settings (usage_error): format png or jpeg (jpeg only where built with libjpeg),
/// a size when images are asked for, and at most 64 images per request.
void check_image_settings(const image_settings& settings);

/// Whether this build encodes JPEG (libjpeg-turbo was found when it was configured).
[[nodiscard]] bool jpeg_available();

/// `width` x `height` RGB pixels (3 bytes each, row by row) of noise from `seed`.
[[nodiscard]] std::vector<std::uint8_t> noise_pixels(int width, int height, std::uint64_t seed);

/// A PNG file (8-bit RGB, no interlace) of `rgb`.
[[nodiscard]] std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb);

/// A baseline JPEG file (quality 90) of `rgb`; ironbench::error where built without libjpeg.
[[nodiscard]] std::string encode_jpeg(int width, int height, const std::vector<std::uint8_t>& rgb);

/// The data URL ("data:image/png;base64,...") of image `image` of request `request`.
[[nodiscard]] std::string synthetic_image_url(const image_settings& settings, std::uint64_t seed, std::size_t request,
                                              int image);

/// The bytes the images of `requests` requests add to the client's memory, roughly (base64 of
/// the raw pixels: noise does not compress).
[[nodiscard]] std::uint64_t image_bytes_estimate(const image_settings& settings, std::uint64_t requests);

/// Adds settings.per_request images to the last user message of every chat request: its text
/// content becomes [{"type": "text", "text": ...}, {"type": "image_url", "image_url": {"url":
/// ...}}, ...]. prompt_len stays the text's count; images is set. usage_error for requests that
/// are not chat messages or are turns of conversations (whose later turns are built as sent).
void add_synthetic_images(std::vector<prepared_request>& requests, const image_settings& settings, std::uint64_t seed);

}  // namespace ironbench::serve
