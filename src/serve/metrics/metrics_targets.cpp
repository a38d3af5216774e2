#include "serve/metrics/metrics_targets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

bool is_role_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

char url_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string normalized_metrics_url(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return url;
  std::string scheme = url.substr(0, scheme_end);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), url_lower);
  const auto rest = url.substr(scheme_end + 3);
  const auto path_at = rest.find_first_of("/?#");
  std::string authority = rest.substr(0, path_at);
  std::string path = path_at == std::string::npos ? std::string("/") : rest.substr(path_at);
  if (path.front() != '/') path.insert(0, "/");
  const auto at = authority.rfind('@');  // credentials stay as written
  std::transform(authority.begin() + static_cast<std::ptrdiff_t>(at == std::string::npos ? 0 : at + 1), authority.end(),
                 authority.begin() + static_cast<std::ptrdiff_t>(at == std::string::npos ? 0 : at + 1), url_lower);
  for (const auto& [name, port] : {std::pair{"http", ":80"}, std::pair{"https", ":443"}}) {
    const std::string p(port);
    if (scheme == name && authority.size() > p.size() && authority.ends_with(p) && authority.back() != ']') {
      authority.resize(authority.size() - p.size());
    }
  }
  const auto query = path.find_first_of("?#");
  auto bare = path.substr(0, query);
  if (bare.size() > 1 && bare.back() == '/') bare.pop_back();
  return scheme + "://" + authority + bare + (query == std::string::npos ? std::string() : path.substr(query));
}

std::vector<std::string> split_metrics_roles(std::vector<std::string>& urls) {
  std::vector<std::string> roles;
  std::size_t labelled = 0;
  for (auto& url : urls) {
    const auto equals = url.find('=');
    const auto scheme = url.find("://");
    // "ROLE=URL": the '=' comes before the scheme (a query string's '=' comes after it).
    if (equals == std::string::npos || (scheme != std::string::npos && equals > scheme)) {
      roles.emplace_back();
      continue;
    }
    auto role = url.substr(0, equals);
    if (role.empty() || !std::all_of(role.begin(), role.end(), is_role_char)) {
      throw usage_error(
          fmt::format("--metrics-url '{}': a role is letters, digits, '_' or '-' before '=' (prefill=URL)", url));
    }
    url = url.substr(equals + 1);
    roles.push_back(std::move(role));
    ++labelled;
  }
  if (labelled > 0 && labelled < urls.size()) {
    throw usage_error("--metrics-url: give every URL a role (prefill=URL, decode=URL) or none");
  }
  if (labelled == 0) roles.assign(urls.size(), std::string());
  // One server scraped twice would count each of its requests twice.
  for (std::size_t i = 0; i < urls.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (normalized_metrics_url(urls[i]) != normalized_metrics_url(urls[j])) continue;
      throw usage_error(fmt::format(
          "--metrics-url names one server twice ('{}' and '{}'): its counters would be added twice; give each "
          "server once",
          urls[j], urls[i]));
    }
  }
  return roles;
}

}  // namespace ironbench::serve
