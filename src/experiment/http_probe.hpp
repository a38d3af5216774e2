// One short HTTP request, for readiness checks of a service (libcurl, no proxy from the
// environment for loopback). Never throws for network errors: the reply says what happened.
#pragma once

#include <string>

namespace ironbench::experiment {

struct http_reply {
  long status = 0;  ///< HTTP status; 0 when no reply came
  std::string body;
  std::string error;  ///< why no reply came ("Connection refused", ...)
};

/// GET `url` (POST `json_body` when not empty), waiting at most `timeout_s`.
[[nodiscard]] http_reply http_request(const std::string& url, const std::string& json_body, double timeout_s);

}  // namespace ironbench::experiment
