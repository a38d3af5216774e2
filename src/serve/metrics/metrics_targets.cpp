#include "serve/metrics/metrics_targets.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

bool is_role_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

}  // namespace

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
  return roles;
}

}  // namespace ironbench::serve
