#include "serve/client/authorization.hpp"

#include <algorithm>
#include <cstdlib>

#include "core/text.hpp"

namespace ironbench::serve {

bool is_authorization_header(const std::string& header) {
  const auto colon = header.find(':');
  if (colon == std::string::npos) return false;
  auto name = header.substr(0, colon);
  while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
  return ascii_lower(name) == "authorization";
}

std::string choose_authorization(std::vector<std::string>& headers, const std::optional<std::string>& url_authorization,
                                 const std::string& api_key_env) {
  if (std::any_of(headers.begin(), headers.end(), is_authorization_header)) return "--header";
  if (url_authorization) {
    headers.push_back(*url_authorization);
    return "user and password in --base-url";
  }
  if (const char* key = std::getenv(api_key_env.c_str()); key != nullptr && *key != '\0') {
    headers.push_back(std::string("Authorization: Bearer ") + key);  // never stored in results
    return "API key from $" + api_key_env;
  }
  return "none";
}

}  // namespace ironbench::serve
