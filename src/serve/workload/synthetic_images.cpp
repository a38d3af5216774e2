#include "serve/workload/synthetic_images.hpp"

#include <zlib.h>

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "serve/common/base64.hpp"

#if IRONBENCH_HAVE_JPEG
#include <jpeglib.h>
#endif

namespace ironbench::serve {
namespace {

std::uint64_t image_splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

void png_put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> static_cast<unsigned>(shift)) & 0xFFU));
}

// One PNG chunk: length, type, data, CRC of type and data.
void png_put_chunk(std::string& out, const char* type, const std::string& data) {
  png_put_u32(out, static_cast<std::uint32_t>(data.size()));
  const auto start = out.size();
  out.append(type, 4);
  out += data;
  const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data() + start), static_cast<uInt>(out.size() - start));
  png_put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

void parse_image_size(const std::string& text, image_settings& settings) {
  int w = 0, h = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%dx%d%c", &w, &h, &extra) != 2 || w < 1 || h < 1 || w > 8192 || h > 8192) {
    throw usage_error(fmt::format("--image-size takes WIDTHxHEIGHT, each 1 to 8192 (e.g. 512x512), not '{}'", text));
  }
  settings.width = w;
  settings.height = h;
}

bool jpeg_available() { return IRONBENCH_HAVE_JPEG != 0; }

void check_image_settings(const image_settings& s) {
  if (s.format != "png" && s.format != "jpeg") {
    throw usage_error(fmt::format("--image-format takes png or jpeg, not '{}'", s.format));
  }
  if (s.per_request < 0 || s.per_request > 64) throw usage_error("--images-per-request takes 0 to 64");
  if (s.per_request == 0) return;
  if (s.width < 1 || s.height < 1) throw usage_error("--images-per-request needs --image-size WIDTHxHEIGHT");
  if (s.format == "jpeg" && !jpeg_available()) {
    throw usage_error(
        "--image-format jpeg: this ironbench was built without libjpeg (install libjpeg62-turbo-dev and rebuild); "
        "--image-format png works");
  }
}

std::vector<std::uint8_t> noise_pixels(int width, int height, std::uint64_t seed) {
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  std::uint64_t state = seed;
  std::size_t i = 0;
  for (; i + 8 <= rgb.size(); i += 8) {
    const auto r = image_splitmix64(state);
    std::memcpy(&rgb[i], &r, 8);
  }
  if (i < rgb.size()) {
    const auto r = image_splitmix64(state);
    std::memcpy(&rgb[i], &r, rgb.size() - i);
  }
  return rgb;
}

std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb) {
  const auto row = static_cast<std::size_t>(width) * 3;
  IRONBENCH_CHECK(rgb.size() == row * static_cast<std::size_t>(height), "encode_png: pixels of another size");
  // Every row starts with its filter type (0: none).
  std::string raw;
  raw.reserve((row + 1) * static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(rgb.data()) + static_cast<std::size_t>(y) * row, row);
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string deflated(size, '\0');
  // The fastest level: noise does not compress, and a point builds thousands of images.
  const int rc = compress2(reinterpret_cast<Bytef*>(deflated.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                           static_cast<uLong>(raw.size()), Z_BEST_SPEED);
  IRONBENCH_CHECK(rc == Z_OK, "zlib compress2 failed");
  deflated.resize(size);
  std::string out = "\x89PNG\r\n\x1a\n";
  std::string header;
  png_put_u32(header, static_cast<std::uint32_t>(width));
  png_put_u32(header, static_cast<std::uint32_t>(height));
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, adaptive filters, no interlace
  png_put_chunk(out, "IHDR", header);
  png_put_chunk(out, "IDAT", deflated);
  png_put_chunk(out, "IEND", "");
  return out;
}

std::string encode_jpeg(int width, int height, const std::vector<std::uint8_t>& rgb) {
#if IRONBENCH_HAVE_JPEG
  IRONBENCH_CHECK(rgb.size() == static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3,
                  "encode_jpeg: pixels of another size");
  jpeg_compress_struct info{};
  jpeg_error_mgr errors{};
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(width);
  info.image_height = static_cast<JDIMENSION>(height);
  info.input_components = 3;
  info.in_color_space = JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, 90, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    auto* line = const_cast<JSAMPLE*>(rgb.data() + static_cast<std::size_t>(info.next_scanline) * width * 3);
    jpeg_write_scanlines(&info, &line, 1);
  }
  jpeg_finish_compress(&info);
  std::string out(reinterpret_cast<const char*>(buffer), size);
  jpeg_destroy_compress(&info);
  std::free(buffer);
  return out;
#else
  (void)width;
  (void)height;
  (void)rgb;
  throw error("JPEG images need libjpeg, which this ironbench was built without");
#endif
}

std::string synthetic_image_url(const image_settings& s, std::uint64_t seed, std::size_t request, int image) {
  std::uint64_t state = seed ^ (static_cast<std::uint64_t>(request) * 0x9E3779B97F4A7C15ULL);
  state = image_splitmix64(state) + static_cast<std::uint64_t>(image);
  const auto pixels = noise_pixels(s.width, s.height, image_splitmix64(state));
  const bool jpeg = s.format == "jpeg";
  const auto file = jpeg ? encode_jpeg(s.width, s.height, pixels) : encode_png(s.width, s.height, pixels);
  return fmt::format("data:image/{};base64,{}", jpeg ? "jpeg" : "png", base64_encoded(file));
}

std::uint64_t image_bytes_estimate(const image_settings& s, std::uint64_t requests) {
  const auto per_image = static_cast<std::uint64_t>(s.width) * static_cast<std::uint64_t>(s.height) * 3 * 4 / 3 + 1024;
  // The body held and its copy in flight.
  return requests * static_cast<std::uint64_t>(s.per_request) * per_image * 2;
}

void add_synthetic_images(std::vector<prepared_request>& requests, const image_settings& s, std::uint64_t seed) {
  if (s.per_request <= 0) return;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto& r = requests[i];
    if (r.session != no_session) {
      throw usage_error("--images-per-request does not apply to conversations (their later turns are built as sent)");
    }
    auto body = json::parse(r.body, nullptr, false);
    if (body.is_discarded() || !body.contains("messages") || !body.at("messages").is_array()) {
      throw usage_error("--images-per-request needs the chat endpoint (--endpoint /v1/chat/completions)");
    }
    auto& messages = body.at("messages");
    json* user = nullptr;
    for (auto& m : messages) {
      if (m.is_object() && m.value("role", "") == "user") user = &m;
    }
    if (user == nullptr) throw usage_error("--images-per-request: a chat request without a user message");
    json parts = json::array();
    auto& content = (*user)["content"];
    if (content.is_string()) {
      parts.push_back({{"type", "text"}, {"text", content}});
    } else if (content.is_array()) {
      parts = content;
    }
    for (int k = 0; k < s.per_request; ++k) {
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", synthetic_image_url(s, seed, i, k)}}}});
    }
    content = std::move(parts);
    r.body = core::json_text(body);
    r.images = s.per_request;
  }
}

}  // namespace ironbench::serve
