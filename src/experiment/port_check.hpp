// Whether something already answers at a service's address before the service starts: a
// foreign server, or one an earlier run left, would otherwise pass the readiness check at once
// and be measured in the service's place.
#pragma once

#include <optional>
#include <string>

namespace ironbench::experiment {

/// "HOST:PORT" of `url` (http://HOST[:PORT]/..., the port 80 or 443 by default) when a TCP
/// connection to it succeeds within `timeout_s`; nullopt when nothing accepts there (or the
/// URL names no host).
[[nodiscard]] std::optional<std::string> address_in_use(const std::string& url, double timeout_s = 1.0);

}  // namespace ironbench::experiment
