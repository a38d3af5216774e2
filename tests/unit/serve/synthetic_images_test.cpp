// Synthetic images: valid PNG files (their CRCs and pixels read back with zlib), JPEG where
// built with libjpeg, deterministic data URLs, chat bodies with image parts, and serve-sim's
// reading of their sizes and its token rule.
#include <gtest/gtest.h>
#include <zlib.h>

#include "core/error.hpp"
#include "core/json.hpp"
#include "serve/sim/sim_images.hpp"
#include "serve/workload/datasets.hpp"
#include "serve/workload/synthetic_images.hpp"

namespace ironbench::serve {
namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8U) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
  return v;
}

TEST(SyntheticImages, PngChunksCarryTheirCrcsAndThePixels) {
  const auto pixels = noise_pixels(5, 3, 42);
  ASSERT_EQ(pixels.size(), 45U);
  EXPECT_EQ(pixels, noise_pixels(5, 3, 42));
  EXPECT_NE(pixels, noise_pixels(5, 3, 43));
  const auto png = encode_png(5, 3, pixels);
  ASSERT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::string idat;
  std::size_t at = 8;
  int chunks = 0;
  while (at + 12 <= png.size()) {
    const auto length = be32(png, at);
    const auto type = png.substr(at + 4, 4);
    const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), length + 4);
    EXPECT_EQ(be32(png, at + 8 + length), crc) << type;
    if (type == "IDAT") idat += png.substr(at + 8, length);
    at += 12 + length;
    ++chunks;
  }
  EXPECT_EQ(at, png.size());
  EXPECT_EQ(chunks, 3);
  std::string raw(3 * (1 + 15), '\0');
  uLongf size = raw.size();
  ASSERT_EQ(
      uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()),
      Z_OK);
  ASSERT_EQ(size, raw.size());
  for (int y = 0; y < 3; ++y) {
    EXPECT_EQ(raw[static_cast<std::size_t>(y) * 16], '\0');  // filter: none
    EXPECT_EQ(raw.substr(static_cast<std::size_t>(y) * 16 + 1, 15),
              std::string(reinterpret_cast<const char*>(pixels.data()) + y * 15, 15));
  }
  const auto read = sim_image_file_size(png);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->width, 5);
  EXPECT_EQ(read->height, 3);
}

TEST(SyntheticImages, JpegWhereBuiltWithLibjpeg) {
  image_settings s{1, 57, 29, "jpeg"};
  if (!jpeg_available()) {
    EXPECT_THROW(check_image_settings(s), usage_error);
    GTEST_SKIP() << "built without libjpeg";
  }
  const auto jpeg = encode_jpeg(57, 29, noise_pixels(57, 29, 1));
  const auto read = sim_image_file_size(jpeg);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->width, 57);
  EXPECT_EQ(read->height, 29);
}

TEST(SyntheticImages, ChatBodiesGetImagePartsAndKeepTheTextCount) {
  body_settings body;
  body.model = "m";
  body.api = openai_api::chat;
  random_dataset d;
  d.input_len = 8;
  d.output_len = 2;
  auto requests = make_random_requests(d, body, 2, 1);
  image_settings s;
  s.per_request = 2;
  parse_image_size("60x30", s);
  add_synthetic_images(requests, s, 9);
  EXPECT_EQ(requests[0].images, 2);
  EXPECT_EQ(requests[0].prompt_len, 8);
  const auto j = json::parse(requests[0].body);
  const auto& content = j.at("messages").at(0).at("content");
  ASSERT_EQ(content.size(), 3U);
  EXPECT_EQ(content.at(0).at("type"), "text");
  EXPECT_EQ(content.at(1).at("image_url").at("url").get<std::string>().rfind("data:image/png;base64,", 0), 0U);
  EXPECT_NE(content.at(1), content.at(2));  // every image its own
  const auto count = count_sim_images(j);
  EXPECT_TRUE(count.error.empty()) << count.error;
  EXPECT_EQ(count.images, 2);
  EXPECT_EQ(count.tokens, 2 * sim_image_tokens(60, 30));
  EXPECT_EQ(sim_image_tokens(60, 30), 3 * 2);
  EXPECT_EQ(count.text_words, 8);
  // The same seed, the same images.
  auto again = make_random_requests(d, body, 2, 1);
  add_synthetic_images(again, s, 9);
  EXPECT_EQ(again[1].body, requests[1].body);
  // A completions body cannot carry images.
  body.api = openai_api::completions;
  auto completions = make_random_requests(d, body, 1, 1);
  EXPECT_THROW(add_synthetic_images(completions, s, 9), usage_error);
  EXPECT_THROW(parse_image_size("0x10", s), usage_error);
  EXPECT_THROW(parse_image_size("10x10x", s), usage_error);
  EXPECT_FALSE(
      count_sim_images(
          json::parse(
              R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]})"))
          .error.empty());
}

}  // namespace
}  // namespace ironbench::serve
