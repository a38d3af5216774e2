// Which credential a serving run sends: one Authorization header, never two. An explicit
// `--header 'Authorization: ...'` wins over a user and password in --base-url, which win over
// the API key in the environment ($OPENAI_API_KEY, --api-key-env): a key from the environment
// never goes to a server the user authenticated to on the command line. The same headers go
// with the requests and with the /metrics scrapes (metrics_scraper.hpp's scrape_headers).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ironbench::serve {

/// Whether `header` ("Name: value") is an Authorization header (the name in any case).
[[nodiscard]] bool is_authorization_header(const std::string& header);

/// Adds to `headers` (the --header values) the one credential to send, unless they hold an
/// Authorization header already: `url_authorization` (take_url_credentials' header), else
/// "Authorization: Bearer $api_key_env" when that variable is set and not empty. Returns
/// where the credential came from, for the run's settings: "--header", "user and password in
/// --base-url", "API key from $VAR" or "none" (never the credential itself).
[[nodiscard]] std::string choose_authorization(std::vector<std::string>& headers,
                                               const std::optional<std::string>& url_authorization,
                                               const std::string& api_key_env);

}  // namespace ironbench::serve
