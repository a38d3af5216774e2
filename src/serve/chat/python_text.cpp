#include "serve/chat/python_text.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "serve/chat/jinja_value.hpp"
#include "serve/chat/utf8_chars.hpp"

namespace ironbench::serve::chat {

bool python_whitespace(std::string_view ch) {
  if (ch.size() == 1) {
    const auto c = static_cast<unsigned char>(ch[0]);
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  }
  static const std::vector<std::string_view> wide{"\u0085", "\u00a0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003",
                                                  "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
                                                  "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"};
  return std::find(wide.begin(), wide.end(), ch) != wide.end();
}

std::string python_strip(const std::string& text, strip_side side, const std::optional<std::string>& chars) {
  const auto characters = utf8_chars(text);
  const auto strip_set = chars ? utf8_chars(*chars) : std::vector<std::string>{};
  const auto strippable = [&](const std::string& ch) {
    return chars ? std::find(strip_set.begin(), strip_set.end(), ch) != strip_set.end() : python_whitespace(ch);
  };
  std::size_t begin = 0;
  std::size_t end = characters.size();
  if (side != strip_side::right) {
    while (begin < end && strippable(characters[begin])) ++begin;
  }
  if (side != strip_side::left) {
    while (end > begin && strippable(characters[end - 1])) --end;
  }
  std::string out;
  for (std::size_t i = begin; i < end; ++i) out += characters[i];
  return out;
}

std::vector<std::string> python_split(const std::string& text, const std::optional<std::string>& sep,
                                      std::int64_t maxsplit) {
  std::vector<std::string> parts;
  if (sep) {
    if (sep->empty()) throw std::invalid_argument("empty separator");  // else found at every position, forever
    std::size_t start = 0;
    while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
      const auto at = text.find(*sep, start);
      if (at == std::string::npos) break;
      parts.push_back(text.substr(start, at - start));
      start = at + sep->size();
    }
    parts.push_back(text.substr(start));
    return parts;
  }
  const auto characters = utf8_chars(text);
  std::size_t i = 0;
  while (i < characters.size()) {
    while (i < characters.size() && python_whitespace(characters[i])) ++i;
    if (i == characters.size()) break;
    std::string word;
    if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
      for (; i < characters.size(); ++i) word += characters[i];
      parts.push_back(python_strip(word, strip_side::right));
      break;
    }
    while (i < characters.size() && !python_whitespace(characters[i])) word += characters[i++];
    parts.push_back(std::move(word));
  }
  return parts;
}

std::string python_replace(const std::string& text, const std::string& old, const std::string& with,
                           std::int64_t count) {
  std::string out;
  if (old.empty()) {  // Python inserts `with` between characters (and at both ends)
    std::int64_t done = 0;
    for (const auto& ch : utf8_chars(text)) {
      if (count < 0 || done < count) {
        append_bounded(out, with, "replace()");
        ++done;
      }
      out += ch;
    }
    if (count < 0 || done < count) append_bounded(out, with, "replace()");
    return out;
  }
  std::size_t start = 0;
  std::int64_t done = 0;
  while (count < 0 || done < count) {
    const auto at = text.find(old, start);
    if (at == std::string::npos) break;
    out.append(text, start, at - start);
    append_bounded(out, with, "replace()");
    start = at + old.size();
    ++done;
  }
  return out + text.substr(start);
}

std::string python_upper(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string python_lower(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string python_title(const std::string& text) {
  std::string out = text;
  bool previous_cased = false;
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalpha(u) != 0) {
      c = static_cast<char>(previous_cased ? std::tolower(u) : std::toupper(u));
      previous_cased = true;
    } else {
      previous_cased = u >= 0x80 && previous_cased;  // inside a non-ASCII letter run: keep going
    }
  }
  return out;
}

std::string python_capitalize(const std::string& text) {
  std::string out = python_lower(text);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

std::vector<std::string> python_splitlines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\x1c' || c == '\x1d' || c == '\x1e') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      lines.push_back(std::move(line));
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) lines.push_back(std::move(line));
  return lines;
}

std::size_t python_length(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

}  // namespace ironbench::serve::chat
