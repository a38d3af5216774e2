// Credentials given in a --base-url (`http://user:password@host:8000`).
//
// They are taken out of the URL before anything sees it, and sent as the HTTP Basic
// Authorization header libcurl would have made of them, so the URLs recorded in runs, result
// files, reports and the database never hold a password (core/redaction.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ironbench::serve {

/// Removes the user information from every URL of `base_urls` and returns the header
/// "Authorization: Basic base64(user:password)" (user and password percent-decoded), or nothing
/// when no URL has any. Throws usage_error when the URLs give different credentials, or some
/// give credentials and others none (one Authorization header goes to every endpoint).
[[nodiscard]] std::optional<std::string> take_url_credentials(std::vector<std::string>& base_urls);

}  // namespace ironbench::serve
