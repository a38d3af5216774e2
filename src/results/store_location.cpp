#include "results/store_location.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
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

}  // namespace

bool is_postgresql_url(std::string_view text) {
  return starts_with_lower(text, "postgresql://") || starts_with_lower(text, "postgres://");
}

std::string redact_store_url(std::string_view url) {
  std::string out;
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const auto authority = scheme_end + 3;
  const auto authority_end = std::min(url.find_first_of("/?#", authority), url.size());
  const auto userinfo_end = url.substr(authority, authority_end - authority).rfind('@');
  out.append(url.substr(0, authority));
  std::size_t from = authority;
  if (userinfo_end != std::string_view::npos) {
    const auto userinfo = url.substr(authority, userinfo_end);
    const auto colon = userinfo.find(':');
    if (colon != std::string_view::npos) {
      out.append(userinfo.substr(0, colon + 1)).append(hidden);
      from = authority + userinfo_end;  // from the '@' on
    }
  }
  // Query parameters: password=… anywhere after '?', up to the next '&' or '#'.
  const auto query = url.find('?', authority_end);
  if (query == std::string_view::npos) {
    out.append(url.substr(from));
    return out;
  }
  out.append(url.substr(from, query + 1 - from));
  std::size_t at = query + 1;
  while (at <= url.size()) {
    const auto end = std::min(url.find_first_of("&#", at), url.size());
    const auto parameter = url.substr(at, end - at);
    const auto equals = parameter.find('=');
    if (equals != std::string_view::npos && ascii_lower(parameter.substr(0, equals)) == "password") {
      out.append(parameter.substr(0, equals + 1)).append(hidden);
    } else {
      out.append(parameter);
    }
    if (end == url.size()) break;
    out.push_back(url[end]);
    if (url[end] == '#') {
      out.append(url.substr(end + 1));
      break;
    }
    at = end + 1;
  }
  return out;
}

store_location::store_location(std::string_view text) {
  if (is_postgresql_url(text)) {
    kind_ = store_kind::postgresql;
    url_ = std::string(text);
    display_ = redact_store_url(text);
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
