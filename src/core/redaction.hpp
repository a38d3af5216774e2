// Secrets a user passes on the command line, kept out of everything ironbench writes.
//
// `--header 'Authorization: Bearer …'` and a password in a URL (`http://user:pw@host`) are
// needed to talk to a server but must not reach a run's JSON, the results database, reports or
// result files. The recorded command line (run.argv) goes through redact_command_line; a URL
// shown anywhere goes through redact_url.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ironbench::core {

/// What replaces a secret.
inline constexpr std::string_view redacted_text = "<redacted>";

/// The URL with its user information (`user:password@`) replaced: `http://<redacted>@host/v1`.
/// A URL without it, or text that is not a URL, is returned as it is.
[[nodiscard]] std::string redact_url(std::string_view url);

/// A header line 'Name: value' with its value replaced: 'Authorization: <redacted>'.
[[nodiscard]] std::string redact_header(std::string_view header);

/// Whether an environment variable of this name holds a secret: its name contains TOKEN, SECRET,
/// PASSWORD, PASSWD, API_KEY, APIKEY or AUTH (any case), as HF_TOKEN or OPENAI_API_KEY do.
[[nodiscard]] bool names_a_secret(std::string_view variable);

/// The command line as it may be recorded: the value of every --header (given as
/// `--header VALUE` or `--header=VALUE`) redacted by redact_header, and every argument's URL
/// user information by redact_url.
[[nodiscard]] std::vector<std::string> redact_command_line(const std::vector<std::string>& argv);

}  // namespace ironbench::core
