// Secrets a user passes on the command line, kept out of everything ironbench writes.
//
// `--header 'Authorization: Bearer …'`, a password in a URL (`http://user:pw@host`,
// `postgresql://…?password=…&sslpassword=…`) or a `password=…` setting are needed to talk to a
// server but must not reach the console, a run's JSON, the results database, reports or result
// files. One scanner (secret_spans) finds every secret-carrying part of a text; the recorded
// command line (run.argv) goes through redact_command_line, a URL or a connection string shown
// anywhere through redact_secrets (redact_url), and a message of a library that may echo what
// it was given (libpq) through redact_message with the secrets it was given.
//
// The scanner errs on the side of hiding: what the user may have meant as a secret is hidden
// even where the text is not a valid URL (a password with an unencoded '/', '@', '?' or '#').
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ironbench::core {

/// What replaces a secret.
inline constexpr std::string_view redacted_text = "<redacted>";

/// A part of a text, [begin, end).
struct text_span {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const text_span&, const text_span&) = default;
};

/// How secret_spans treats a URL's user information.
enum class user_information {
  secret,     ///< all of it is secret (`https://TOKEN@host`): `http://<redacted>@host`
  keep_user,  ///< only what follows its first ':' (a database role is not secret): `postgresql://u:***@h`
};

/// Whether the name of a setting (a URL query parameter, a libpq keyword, a `key=value`) says
/// that its value is a secret: libpq's `password`, `sslpassword` and `oauth_client_secret`, and
/// any name that contains "password", "passwd" or "secret" or ends with "token", "apikey" or
/// "api_key" (any case, percent-encoding decoded first: `pass%77ord` is `password`).
[[nodiscard]] bool is_secret_key(std::string_view key);

/// The secret parts of `text`, sorted, not overlapping, each one the user may have meant:
///  * a URL's user information: everything from the first "://" to the last '@' of the text
///    (any scheme, any case; so that a password with '/', '@', '?', '#', ',' or "://" in it is
///    hidden whole; with keep_user, from the first ':' after "://" on);
///  * the value of every `KEY=VALUE` whose key is_secret_key: URL query parameters (`?password=`,
///    `&sslpassword=`) and libpq's `key=value` connection strings (`password='a b'`), spaces
///    around '=' allowed. A value after '?' or '&' runs to the next '&' that starts another
///    `KEY=` (libpq splits a query at '&' only: '#' and spaces are part of a value); one at the
///    start or after white space to the next white space before another `KEY =`; one after
///    anything else to the later of the two; each to the end of the text when nothing ends it,
///    and a single-quoted value to its closing quote (backslash escapes) at least.
[[nodiscard]] std::vector<text_span> secret_spans(std::string_view text,
                                                  user_information user = user_information::secret);

/// `text` with every secret_spans part replaced by `marker`.
[[nodiscard]] std::string redact_secrets(std::string_view text, user_information user = user_information::secret,
                                         std::string_view marker = redacted_text);

/// The secrets of a URL or connection string as a library given it may echo them: each secret
/// span's text as written and percent-decoded (non-empty ones, longest first, each once).
[[nodiscard]] std::vector<std::string> connection_secrets(std::string_view text,
                                                          user_information user = user_information::secret);

/// A message of a library (libpq) that was given `secrets`: every occurrence of each of them
/// replaced by `marker`, then redact_secrets (a URL it quotes, a `password=` it names).
[[nodiscard]] std::string redact_message(std::string_view message, const std::vector<std::string>& secrets,
                                         std::string_view marker = redacted_text);

/// redact_secrets with the user information all secret: `http://<redacted>@host/v1`,
/// `postgresql://h/db?password=<redacted>`. Text without a secret is returned as it is.
[[nodiscard]] std::string redact_url(std::string_view url);

/// A header line 'Name: value' with its value replaced: 'Authorization: <redacted>'. Where
/// the text before the first ':' is not a field name (RFC 9110's token characters: no white
/// space, '=', quote or '@'), the whole header is '<redacted>': it may hold a secret.
[[nodiscard]] std::string redact_header(std::string_view header);

/// Whether an environment variable of this name holds a secret: its name contains TOKEN, SECRET,
/// PASSWORD, PASSWD, API_KEY, APIKEY or AUTH (any case), as HF_TOKEN or OPENAI_API_KEY do.
[[nodiscard]] bool names_a_secret(std::string_view variable);

/// The command line as it may be recorded: the value of every --header (given as
/// `--header VALUE` or `--header=VALUE`) redacted by redact_header, and every other argument
/// by redact_url (URL user information, secret query parameters and `password=` settings).
[[nodiscard]] std::vector<std::string> redact_command_line(const std::vector<std::string>& argv);

}  // namespace ironbench::core
