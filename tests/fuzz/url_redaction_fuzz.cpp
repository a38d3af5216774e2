// libFuzzer target of the secret redaction (src/core/redaction.hpp) and of the PostgreSQL
// locations built on it (src/results/store_location.hpp). The input is split at NUL bytes into
// pieces; its first byte picks how a secret is written into a text made of the other pieces:
//
//   0  a URL's user information      SCHEME://USER:SECRET@REST
//   1  a URL query parameter         SCHEME://HOST?PARAMS&KEY=SECRET&REST   (SECRET without '&')
//   2  a connection-string setting   PARAMS KEY=SECRET REST           (SECRET without white space)
//   3  a quoted setting              PARAMS KEY='SECRET' REST         (' and \ escaped)
//   4  libpq's echo of a token       invalid percent-encoded token: "SECRET" (the secret of a URL)
//   5  a --db location               postgresql://USER:SECRET@REST, postgres://HOST/DB?KEY=SECRET
//
// where KEY is one of the names libpq reads a secret from (in several spellings). Aborts when a
// byte of the secret survives: secret_spans must cover every byte of it (both ways of treating
// the user information), and no byte of the secret that occurs nowhere else in the text (nor
// in the markers or a redacted header's ": ", nor, for messages, in their printable English)
// may appear in what redact_secrets, redact_command_line, redact_message,
// store_location::display() or a store_location's usage_error gives.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/redaction.hpp"
#include "results/store_location.hpp"

namespace {

using ironbench::core::user_information;

constexpr std::array<std::string_view, 8> secret_keys = {
    "password", "sslpassword", "oauth_client_secret", "PassWord", "pass%77ord", "SSLPASSWORD", "hf_token", "passwd"};

struct built {
  std::string text;
  std::size_t begin = 0;  // where the secret is in it
  std::size_t end = 0;
};

std::string without(std::string_view text, std::string_view drop) {
  std::string out;
  for (const char c : text) {
    if (drop.find(c) == std::string_view::npos) out.push_back(c);
  }
  return out;
}

built place(std::string prefix, std::string_view secret, std::string_view suffix) {
  built b;
  b.begin = prefix.size();
  b.end = b.begin + secret.size();
  b.text = std::move(prefix);
  b.text.append(secret).append(suffix);
  return b;
}

// Every byte of [begin, end) inside a span.
void require_covered(const built& b, user_information user) {
  const auto spans = ironbench::core::secret_spans(b.text, user);
  std::size_t s = 0;
  for (auto i = b.begin; i < b.end; ++i) {
    while (s < spans.size() && spans[s].end <= i) ++s;
    if (s == spans.size() || spans[s].begin > i) std::abort();
  }
}

// The bytes of the secret that occur nowhere else in the text, nor in `also`.
std::array<bool, 256> witnesses(const built& b, bool printable_too) {
  std::array<bool, 256> secret{};
  std::array<bool, 256> public_bytes{};
  for (auto i = b.begin; i < b.end; ++i) secret[static_cast<unsigned char>(b.text[i])] = true;
  for (std::size_t i = 0; i < b.text.size(); ++i) {
    if (i < b.begin || i >= b.end) public_bytes[static_cast<unsigned char>(b.text[i])] = true;
  }
  // The markers, and the ": " that joins a header's name to its marker (a text that starts
  // with --header= is a header to redact_command_line).
  for (const std::string_view marker :
       {ironbench::core::redacted_text, std::string_view("***"), std::string_view(": ")}) {
    for (const char c : marker) public_bytes[static_cast<unsigned char>(c)] = true;
  }
  std::array<bool, 256> out{};
  for (int c = 0; c < 256; ++c) {
    const bool printable = c >= 0x20 && c < 0x7f;
    out[c] = secret[c] && !public_bytes[c] && (printable_too || !printable);
  }
  return out;
}

void require_absent(std::string_view shown, const std::array<bool, 256>& witness) {
  for (const char c : shown) {
    if (witness[static_cast<unsigned char>(c)]) std::abort();
  }
}

void check_redaction(const built& b) {
  if (b.begin == b.end) return;
  require_covered(b, user_information::secret);
  require_covered(b, user_information::keep_user);
  const auto witness = witnesses(b, true);
  require_absent(ironbench::core::redact_secrets(b.text), witness);
  require_absent(ironbench::core::redact_secrets(b.text, user_information::keep_user, "***"), witness);
  const auto argv = ironbench::core::redact_command_line({"ironbench", "--db", b.text, "--db=" + b.text});
  require_absent(argv.at(2), witness);
  require_absent(std::string_view(argv.at(3)).substr(5), witness);
}

void check_location(const built& b) {
  if (b.begin == b.end) return;
  const auto witness = witnesses(b, false);  // a message's English is printable
  try {
    const ironbench::results::store_location location(b.text);
    require_absent(location.display(), witnesses(b, true));
  } catch (const ironbench::usage_error& e) {
    require_absent(e.what(), witness);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string_view> pieces;
  for (std::size_t from = 0;;) {
    const auto nul = input.find('\0', from);
    pieces.push_back(input.substr(from, nul == std::string_view::npos ? std::string_view::npos : nul - from));
    if (nul == std::string_view::npos) break;
    from = nul + 1;
  }
  pieces.resize(std::max<std::size_t>(pieces.size(), 5));
  const auto form = data[0] % 6;
  const auto key = secret_keys[(data[0] / 6) % secret_keys.size()];
  const std::string a(pieces[0]), b(pieces[1]), rest(pieces[3]);
  const std::string_view secret = pieces[2];
  switch (form) {
    case 0: check_redaction(place(a + "://" + b + ":", secret, "@" + rest)); break;
    case 1: {
      const auto params = b.empty() ? std::string() : b + "&";
      check_redaction(place(a + "://" + std::string(pieces[4]) + "?" + params + std::string(key) + "=",
                            without(secret, "&"), rest.empty() ? "" : "&" + rest));
      break;
    }
    case 2: {
      auto value = without(secret, " \t\n\r\v\f");
      while (!value.empty() && value.front() == '\'') value.erase(0, 1);
      check_redaction(
          place((a.empty() ? "" : a + " ") + std::string(key) + "=", value, rest.empty() ? "" : " " + rest));
      break;
    }
    case 3: {
      std::string quoted;
      for (const char c : secret) {
        if (c == '\'' || c == '\\') quoted.push_back('\\');
        quoted.push_back(c);
      }
      auto placed =
          place((a.empty() ? "" : a + " ") + std::string(key) + "='", quoted, "'" + (rest.empty() ? "" : " " + rest));
      check_redaction(placed);
      break;
    }
    case 4: {
      // The secret of a URL whose user has no ':' and whose rest has no '@': libpq quotes it as is.
      const auto url = "postgresql://" + without(b, ":") + ":" + std::string(secret) + "@" + without(rest, "@");
      const auto secrets = ironbench::core::connection_secrets(url, user_information::keep_user);
      const auto message = place("invalid percent-encoded token: \"", secret, "\"");
      if (message.begin == message.end) break;
      const auto witness = witnesses(message, true);
      require_absent(ironbench::core::redact_message(message.text, secrets, "***"), witness);
      break;
    }
    default: {
      static constexpr std::array<std::string_view, 4> schemes = {"postgresql://", "POSTGRESQL://", "postgres://",
                                                                  "PostgreSQL://"};
      const auto scheme = std::string(schemes[(data[0] / 6) % schemes.size()]);
      check_location(place(scheme + b + ":", secret, "@" + rest));
      check_location(
          place(scheme + b + "/db?" + std::string(key) + "=", without(secret, "&"), rest.empty() ? "" : "&" + rest));
      break;
    }
  }
  return 0;
}
