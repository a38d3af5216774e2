#include "serve/sim/sim_images.hpp"

#include <fmt/format.h>

#include <array>

#include "serve/common/text_units.hpp"

namespace ironbench::serve {
namespace {

// Standard base64 (padding optional); empty on a character outside the alphabet.
std::optional<std::string> base64_decoded(std::string_view text) {
  static const auto table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
    return t;
  }();
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t group = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    const int v = table[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    group = (group << 6U) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((group >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  return out;
}

std::uint32_t big_endian(std::string_view bytes, std::size_t at, int size) {
  std::uint32_t v = 0;
  for (int i = 0; i < size; ++i) v = (v << 8U) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

std::int64_t sim_image_tokens(int width, int height) {
  return static_cast<std::int64_t>((width + 27) / 28) * static_cast<std::int64_t>((height + 27) / 28);
}

std::optional<image_size> sim_image_file_size(std::string_view f) {
  if (f.size() >= 24 && f.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8) && f.substr(12, 4) == "IHDR") {
    const auto w = big_endian(f, 16, 4), h = big_endian(f, 20, 4);
    if (w == 0 || h == 0 || w > 1U << 20U || h > 1U << 20U) return std::nullopt;
    return image_size{static_cast<int>(w), static_cast<int>(h)};
  }
  if (f.size() < 4 || static_cast<unsigned char>(f[0]) != 0xFF || static_cast<unsigned char>(f[1]) != 0xD8) {
    return std::nullopt;
  }
  // JPEG: walk the markers to the first start of frame (SOF0..SOF15 but DHT, JPG and DAC).
  std::size_t at = 2;
  while (at + 4 <= f.size()) {
    if (static_cast<unsigned char>(f[at]) != 0xFF) return std::nullopt;
    const auto marker = static_cast<unsigned char>(f[at + 1]);
    if (marker == 0xFF) {
      ++at;
      continue;
    }
    const auto length = big_endian(f, at + 2, 2);
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      if (at + 9 > f.size()) return std::nullopt;
      const auto h = big_endian(f, at + 5, 2), w = big_endian(f, at + 7, 2);
      if (w == 0 || h == 0) return std::nullopt;
      return image_size{static_cast<int>(w), static_cast<int>(h)};
    }
    if (length < 2) return std::nullopt;
    at += 2 + length;
  }
  return std::nullopt;
}

sim_image_count count_sim_images(const json& body) {
  sim_image_count out;
  const auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array()) return out;
  for (const auto& m : *messages) {
    if (!m.is_object() || !m.contains("content") || !m.at("content").is_array()) continue;
    for (const auto& part : m.at("content")) {
      if (!part.is_object()) continue;
      const auto type = part.value("type", "");
      if (type == "text" && part.contains("text") && part.at("text").is_string()) {
        out.text_words += count_words(part.at("text").get<std::string>());
        continue;
      }
      if (type != "image_url") continue;
      const json* url = nullptr;
      if (part.contains("image_url") && part.at("image_url").is_object() && part.at("image_url").contains("url")) {
        url = &part.at("image_url").at("url");
      }
      if (url == nullptr || !url->is_string()) {
        out.error = "an image_url part without a url string";
        return out;
      }
      const auto& text = url->get_ref<const std::string&>();
      const auto comma = text.find(',');
      if (text.rfind("data:image/", 0) != 0 || comma == std::string::npos ||
          text.substr(0, comma).find(";base64") == std::string::npos) {
        out.error = "serve-sim reads images from base64 data URLs only (data:image/png;base64,...)";
        return out;
      }
      const auto file = base64_decoded(std::string_view(text).substr(comma + 1));
      const auto size = file ? sim_image_file_size(*file) : std::nullopt;
      if (!size) {
        out.error = fmt::format("image {} is not a PNG or JPEG whose size can be read", out.images + 1);
        return out;
      }
      ++out.images;
      out.tokens += sim_image_tokens(size->width, size->height);
    }
  }
  return out;
}

}  // namespace ironbench::serve
