#include "results/store_location.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/redaction.hpp"
#include "core/text.hpp"

namespace ironbench::results {
namespace {

constexpr std::string_view hidden = "***";

bool starts_with_lower(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && ascii_lower(text.substr(0, prefix.size())) == prefix;
}

/// "scheme://" at the start of `text` (letters, digits, '+', '-', '.'): a URL, not a path.
bool has_url_scheme(std::string_view text) {
  const auto end = text.find("://");
  if (end == std::string_view::npos || end == 0) return false;
  for (const char c : text.substr(0, end)) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Whether libpq decodes `text` without an error: every '%' followed by two hexadecimal digits,
// none of them %00.
bool decodes(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    if (i + 2 >= text.size() || hex_digit(text[i + 1]) < 0 || hex_digit(text[i + 2]) < 0) return false;
    if (hex_digit(text[i + 1]) == 0 && hex_digit(text[i + 2]) == 0) return false;
    i += 2;
  }
  return true;
}

bool is_keyword_character(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// The URL as libpq is to read it: its scheme in lower case (libpq knows "postgresql://" and
// "postgres://" only so, and would take "POSTGRESQL://h/db" for a database name on its default
// server). Every URL libpq would refuse (and quote, password included, in its message) or read
// other than it looks (an '@' after a '/': libpq ends the user information at the first '/')
// is refused here with a message that names it by `shown`, its redacted form. The grammar is
// libpq's conninfo_uri_parse_options.
std::string checked_postgresql_url(std::string_view text, const std::string& shown) {
  const auto refuse = [&](std::string_view why) { return usage_error(fmt::format("--db '{}': {}", shown, why)); };
  const auto scheme_end = text.find("://");
  std::string url = ascii_lower(text.substr(0, scheme_end)) + std::string(text.substr(scheme_end));
  const std::string_view rest = std::string_view(url).substr(scheme_end + 3);
  std::size_t at = rest.find_first_of("@/");
  std::size_t p = 0;
  if (at != std::string_view::npos && rest[at] == '@') {
    const auto userinfo = rest.substr(0, at);
    if (!decodes(userinfo)) {
      throw refuse(
          "its user name or password has a '%' not followed by two hexadecimal digits (or %00); a '%' is "
          "written %25");
    }
    p = at + 1;
  }
  if (rest.find('@', p) != std::string_view::npos) {
    throw refuse(
        "an '@' may come once, right before the host; in a user name or password a '/' is written %2F and "
        "an '@' %40 (libpq ends the user information at the first '/')");
  }
  // host[:port] or [IPv6][:port], separated by commas.
  char terminator = '\0';
  for (;;) {
    std::size_t host = p;
    if (p < rest.size() && rest[p] == '[') {
      host = ++p;
      while (p < rest.size() && rest[p] != ']') ++p;
      if (p == rest.size()) throw refuse("an IPv6 address has no closing ']'");
      if (p == host) throw refuse("an IPv6 address between '[' and ']' is empty");
      ++p;
      if (p < rest.size() && rest[p] != ':' && rest[p] != '/' && rest[p] != '?' && rest[p] != ',') {
        throw refuse("an IPv6 address in '[' and ']' is followed by something other than ':', '/', '?' or ','");
      }
    } else {
      while (p < rest.size() && rest[p] != ':' && rest[p] != '/' && rest[p] != '?' && rest[p] != ',') ++p;
    }
    if (!decodes(rest.substr(host, p - host))) {
      throw refuse("a host has a '%' not followed by two hexadecimal digits (or %00)");
    }
    terminator = p < rest.size() ? rest[p] : '\0';
    if (terminator == ':') {
      const auto port = ++p;
      while (p < rest.size() && rest[p] != '/' && rest[p] != '?' && rest[p] != ',') ++p;
      const auto digits = rest.substr(port, p - port);
      if (digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string_view::npos ||
          (!digits.empty() && std::stoi(std::string(digits)) > 65535)) {
        throw refuse("a port is not a number from 0 to 65535");
      }
      terminator = p < rest.size() ? rest[p] : '\0';
    }
    if (terminator != ',') break;
    ++p;
  }
  if (terminator == '/') {
    const auto database = ++p;
    while (p < rest.size() && rest[p] != '?') ++p;
    if (!decodes(rest.substr(database, p - database))) {
      throw refuse("the database name has a '%' not followed by two hexadecimal digits (or %00)");
    }
    terminator = p < rest.size() ? rest[p] : '\0';
  }
  if (terminator == '?') {
    const auto parameters = split(rest.substr(p + 1), '&');
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const auto& parameter = parameters[i];
      if (parameter.empty() && i + 1 == parameters.size()) break;  // "?" alone, or a last '&'
      const auto equals = parameter.find('=');
      if (equals == std::string::npos || parameter.find('=', equals + 1) != std::string::npos) {
        throw refuse("a query parameter is not one NAME=VALUE (a '=' or '&' in a value is written %3D or %26)");
      }
      const auto name = std::string_view(parameter).substr(0, equals);
      if (!decodes(name) || !decodes(std::string_view(parameter).substr(equals + 1))) {
        throw refuse("a query parameter has a '%' not followed by two hexadecimal digits (or %00)");
      }
      if (name.empty() || !std::all_of(name.begin(), name.end(), is_keyword_character)) {
        throw refuse("a query parameter's name is not one of libpq's (lower-case letters, digits and '_')");
      }
    }
  }
  return url;
}

}  // namespace

bool is_postgresql_url(std::string_view text) {
  return starts_with_lower(text, "postgresql://") || starts_with_lower(text, "postgres://");
}

std::string redact_store_url(std::string_view url) {
  return core::redact_secrets(url, core::user_information::keep_user, hidden);
}

store_location::store_location(std::string_view text) {
  if (is_postgresql_url(text)) {
    kind_ = store_kind::postgresql;
    display_ = redact_store_url(text);
    url_ = checked_postgresql_url(text, display_);
    return;
  }
  if (has_url_scheme(text)) {
    throw usage_error(
        fmt::format("--db '{}': unknown kind of store (known: a file path for SQLite, "
                    "postgresql://USER@HOST[:PORT]/DATABASE for PostgreSQL)",
                    redact_store_url(text)));
  }
  file_ = std::filesystem::path(text);
  display_ = std::string(text);
}

store_location::store_location(const std::filesystem::path& file) : store_location(std::string_view(file.native())) {}

}  // namespace ironbench::results
