#include "core/redaction.hpp"

#include <string>

#include "core/text.hpp"

namespace ironbench::core {
namespace {

constexpr std::string_view header_option = "--header";

}  // namespace

std::string redact_url(std::string_view url) {
  // Every "scheme://userinfo@" in the text: an argument may hold several URLs (a list).
  std::string out;
  std::size_t from = 0;
  for (auto scheme_end = url.find("://"); scheme_end != std::string_view::npos; scheme_end = url.find("://", from)) {
    const auto authority = scheme_end + 3;
    const auto authority_end = url.find_first_of("/?#, \t", authority);
    const auto host_part = url.substr(
        authority, authority_end == std::string_view::npos ? std::string_view::npos : authority_end - authority);
    const auto at = host_part.rfind('@');
    out.append(url.substr(from, authority - from));
    if (at != std::string_view::npos) {
      out.append(redacted_text);
      from = authority + at;  // from the '@' on
    } else {
      from = authority;
    }
  }
  out.append(url.substr(from));
  return out;
}

std::string redact_header(std::string_view header) {
  const auto colon = header.find(':');
  if (colon == std::string_view::npos) return std::string(redacted_text);
  return std::string(header.substr(0, colon)) + ": " + std::string(redacted_text);
}

bool names_a_secret(std::string_view variable) {
  const auto lower = ascii_lower(variable);
  for (const std::string_view word : {"token", "secret", "password", "passwd", "api_key", "apikey", "auth"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> redact_command_line(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool header_value_next = false;
  for (const auto& argument : argv) {
    const std::string_view text(argument);
    if (header_value_next) {
      out.push_back(redact_header(text));
      header_value_next = false;
    } else if (text == header_option) {
      out.push_back(argument);
      header_value_next = true;
    } else if (text.size() > header_option.size() && text.starts_with(header_option) &&
               text[header_option.size()] == '=') {
      out.push_back(std::string(header_option) + "=" + redact_header(text.substr(header_option.size() + 1)));
    } else {
      out.push_back(redact_url(text));
    }
  }
  return out;
}

}  // namespace ironbench::core
