#include "core/redaction.hpp"

#include <algorithm>
#include <string>

#include "core/text.hpp"

namespace ironbench::core {
namespace {

constexpr std::string_view header_option = "--header";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The characters of a setting's name: libpq's keywords, URL query names (percent-encoded too).
bool is_key_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-' || c == '%';
}

// How a value's end is found: by libpq's URL query rules (after '?' or '&': up to an '&' that
// starts another NAME=), by its connection-string rules (at the start or after white space: up
// to white space before another NAME =), or, where the text does not say which, by the one that
// ends it later.
enum class value_rules { url, connection_string, both };

// Where the values of a text end, computed once for the whole text (a text full of `password=`
// is scanned in linear time).
class value_ends {
 public:
  explicit value_ends(std::string_view text) : text_(text), url_(text.size() + 1), spaced_(text.size() + 1) {
    const auto n = text.size();
    // setting[i]: a NAME (key characters from i on), then for `spaced` optional white space, '='.
    std::vector<char> setting(n + 1, 0), setting_spaced(n + 1, 0);
    std::vector<std::size_t> non_space(n + 1, n);
    for (std::size_t i = n; i-- > 0;) non_space[i] = is_space(text[i]) ? non_space[i + 1] : i;
    for (std::size_t i = 0; i < n;) {
      if (!is_key_character(text[i])) {
        ++i;
        continue;
      }
      auto run_end = i;
      while (run_end < n && is_key_character(text[run_end])) ++run_end;
      const bool tight = run_end < n && text[run_end] == '=';
      const bool spaced = non_space[run_end] < n && text[non_space[run_end]] == '=';
      for (auto k = i; k < run_end; ++k) {
        setting[k] = tight ? 1 : 0;
        setting_spaced[k] = spaced ? 1 : 0;
      }
      i = run_end;
    }
    url_[n] = n;
    spaced_[n] = n;
    for (std::size_t q = n; q-- > 0;) {
      url_[q] = text[q] == '&' && setting[q + 1] != 0 ? q : url_[q + 1];
      const bool ends = is_space(text[q]) && non_space[q + 1] < n && setting_spaced[non_space[q + 1]] != 0;
      spaced_[q] = ends ? q : spaced_[q + 1];
    }
  }

  // The end of the value that starts at `begin`: a single-quoted value (libpq's quoting, with
  // backslash escapes) runs to its closing quote at least.
  [[nodiscard]] std::size_t end_of(std::size_t begin, value_rules rules) const {
    auto at = begin;
    while (at < text_.size() && is_space(text_[at])) ++at;
    if (at < text_.size() && text_[at] == '\'') {
      for (++at; at < text_.size() && text_[at] != '\''; ++at) {
        if (text_[at] == '\\') ++at;
      }
      at = std::min(text_.size(), at + 1);
    } else {
      at = begin;
    }
    switch (rules) {
      case value_rules::url: return url_[at];
      case value_rules::connection_string: return spaced_[at];
      case value_rules::both: break;
    }
    return std::max(url_[at], spaced_[at]);
  }

 private:
  std::string_view text_;
  std::vector<std::size_t> url_;     ///< the next '&' that starts a NAME=
  std::vector<std::size_t> spaced_;  ///< the next white space before a NAME =
};

// The spans sorted and merged where they overlap or touch.
std::vector<text_span> merged(std::vector<text_span> spans) {
  std::sort(spans.begin(), spans.end(), [](const text_span& a, const text_span& b) { return a.begin < b.begin; });
  std::vector<text_span> out;
  for (const auto& s : spans) {
    if (s.end <= s.begin) continue;
    if (!out.empty() && s.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

bool is_secret_key(std::string_view key) {
  const auto name = ascii_lower(percent_decoded(key));
  for (const std::string_view word : {"password", "passwd", "secret"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  for (const std::string_view end : {"token", "apikey", "api_key"}) {
    if (name.ends_with(end)) return true;
  }
  return false;
}

namespace {

// secret_spans before they are merged: each secret part as found, some overlapping (a
// `token=` inside a URL's user information).
std::vector<text_span> unmerged_secret_spans(std::string_view text, user_information user) {
  std::vector<text_span> spans;
  const auto url = text.find("://");
  if (url != std::string_view::npos) {
    // The user information: to the last '@' of the text, whatever comes between.
    const auto authority = url + 3;
    const auto at = text.rfind('@');
    if (at != std::string_view::npos && at >= authority) {
      auto begin = authority;
      if (user == user_information::keep_user) {
        const auto colon = text.find(':', authority);
        begin = colon < at ? colon + 1 : at;
      }
      spans.push_back({begin, at});
    }
  }
  // Every '=' after a secret name, also one inside another value (a name's value is found
  // whatever came before it).
  const value_ends ends(text);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '=') continue;
    auto key_end = i;
    while (key_end > 0 && is_space(text[key_end - 1])) --key_end;
    auto key = key_end;
    while (key > 0 && is_key_character(text[key - 1])) --key;
    if (key == key_end || !is_secret_key(text.substr(key, key_end - key))) continue;
    auto rules = value_rules::both;
    if (key > 0 && (text[key - 1] == '?' || text[key - 1] == '&')) rules = value_rules::url;
    if (key == 0 || is_space(text[key - 1])) rules = value_rules::connection_string;
    spans.push_back({i + 1, ends.end_of(i + 1, rules)});
  }
  return spans;
}

}  // namespace

std::vector<text_span> secret_spans(std::string_view text, user_information user) {
  return merged(unmerged_secret_spans(text, user));
}

std::string redact_secrets(std::string_view text, user_information user, std::string_view marker) {
  std::string out;
  std::size_t from = 0;
  for (const auto& span : secret_spans(text, user)) {
    out.append(text.substr(from, span.begin - from)).append(marker);
    from = span.end;
  }
  out.append(text.substr(from));
  return out;
}

std::vector<std::string> connection_secrets(std::string_view text, user_information user) {
  // Each part as found and as merged: a library quotes the one it was parsing (a password),
  // which a merged span (the password and a `token=` around it) no longer is.
  auto spans = unmerged_secret_spans(text, user);
  for (const auto& span : secret_spans(text, user)) spans.push_back(span);
  std::vector<std::string> secrets;
  for (const auto& span : spans) {
    const auto raw = text.substr(span.begin, span.end - span.begin);
    for (auto s : {std::string(raw), percent_decoded(raw)}) {
      if (!s.empty() && std::find(secrets.begin(), secrets.end(), s) == secrets.end()) secrets.push_back(std::move(s));
    }
  }
  std::stable_sort(secrets.begin(), secrets.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return secrets;
}

std::string redact_message(std::string_view message, const std::vector<std::string>& secrets, std::string_view marker) {
  // Every occurrence of every secret marked first (they may overlap), then each run of marked
  // bytes replaced: no secret can hide another one's end.
  std::vector<text_span> found;
  for (const auto& secret : secrets) {
    if (secret.empty() || secret.size() > message.size()) continue;
    // Knuth-Morris-Pratt: every occurrence in linear time.
    std::vector<std::size_t> border(secret.size(), 0);
    for (std::size_t i = 1, k = 0; i < secret.size(); ++i) {
      while (k > 0 && secret[i] != secret[k]) k = border[k - 1];
      if (secret[i] == secret[k]) ++k;
      border[i] = k;
    }
    for (std::size_t i = 0, k = 0; i < message.size(); ++i) {
      while (k > 0 && message[i] != secret[k]) k = border[k - 1];
      if (message[i] == secret[k]) ++k;
      if (k == secret.size()) {
        found.push_back({i + 1 - k, i + 1});
        k = border[k - 1];
      }
    }
  }
  std::string out;
  out.reserve(message.size());
  std::size_t from = 0;
  for (const auto& span : merged(std::move(found))) {
    out.append(message.substr(from, span.begin - from)).append(marker);
    from = span.end;
  }
  out.append(message.substr(from));
  return redact_secrets(out, user_information::secret, marker);
}

std::string redact_url(std::string_view url) { return redact_secrets(url); }

std::string redact_header(std::string_view header) {
  const auto colon = header.find(':');
  if (colon == std::string_view::npos || !is_http_field_name(header.substr(0, colon))) {
    return std::string(redacted_text);
  }
  return std::string(header.substr(0, colon)) + ": " + std::string(redacted_text);
}

bool names_a_secret(std::string_view variable) {
  const auto lower = ascii_lower(variable);
  for (const std::string_view word : {"token", "secret", "password", "passwd", "api_key", "apikey", "auth"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> redact_command_line(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  bool header_value_next = false;
  for (const auto& argument : argv) {
    const std::string_view text(argument);
    if (header_value_next) {
      out.push_back(redact_header(text));
      header_value_next = false;
    } else if (text == header_option) {
      out.push_back(argument);
      header_value_next = true;
    } else if (text.size() > header_option.size() && text.starts_with(header_option) &&
               text[header_option.size()] == '=') {
      out.push_back(std::string(header_option) + "=" + redact_header(text.substr(header_option.size() + 1)));
    } else {
      out.push_back(redact_url(text));
    }
  }
  return out;
}

}  // namespace ironbench::core
