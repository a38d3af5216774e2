#include "serve/client/url_credentials.hpp"

#include <fmt/format.h>

#include <string_view>

#include "core/error.hpp"
#include "core/text.hpp"
#include "serve/common/base64.hpp"

namespace ironbench::serve {
namespace {

// The user information of the URL ("user:password"), removed from it; empty when it has none.
std::string remove_user_information(std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return {};
  const auto authority = scheme_end + 3;
  const auto authority_end = url.find_first_of("/?#", authority);
  const auto length = (authority_end == std::string::npos ? url.size() : authority_end) - authority;
  const auto at = std::string_view(url).substr(authority, length).rfind('@');
  if (at == std::string_view::npos) return {};
  auto information = url.substr(authority, at);
  url.erase(authority, at + 1);
  return information;
}

}  // namespace

std::optional<std::string> take_url_credentials(std::vector<std::string>& base_urls) {
  std::vector<std::string> informations;
  for (auto& url : base_urls) informations.push_back(remove_user_information(url));
  bool any = false;
  for (const auto& i : informations) any = any || !i.empty();
  if (!any) return std::nullopt;
  for (std::size_t i = 1; i < informations.size(); ++i) {
    if (informations[i] != informations[0]) {
      throw usage_error(fmt::format(
          "--base-url: {} and {} are given different credentials; one Authorization header goes to every endpoint",
          base_urls[0], base_urls[i]));
    }
  }
  const auto& information = informations[0];
  const auto colon = information.find(':');
  const auto user = percent_decoded(information.substr(0, colon));
  const auto password = colon == std::string::npos ? std::string() : percent_decoded(information.substr(colon + 1));
  return "Authorization: Basic " + base64_encoded(user + ":" + password);
}

}  // namespace ironbench::serve
