#include "serve/metrics/prometheus_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace ironbench::serve {
namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

// A cursor over one line; every read checks the end.
struct line_reader {
  std::string_view text;
  std::size_t at = 0;

  [[nodiscard]] bool done() const { return at >= text.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : text[at]; }
  void skip_blanks() {
    while (!done() && is_blank(text[at])) ++at;
  }
  std::string_view name() {
    const auto begin = at;
    if (done() || !is_name_start(text[at])) return {};
    while (!done() && is_name_char(text[at])) ++at;
    return text.substr(begin, at - begin);
  }
  std::string_view token() {
    const auto begin = at;
    while (!done() && !is_blank(text[at])) ++at;
    return text.substr(begin, at - begin);
  }
};

std::optional<double> parse_value(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
  if (text == "-Inf") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);  // from_chars takes no leading '+'
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The quoted label value at the cursor (after the opening quote), unescaped; nullopt when the
// line ends first or an escape is unknown.
std::optional<std::string> quoted(line_reader& in) {
  std::string value;
  while (!in.done()) {
    const char c = in.text[in.at++];
    if (c == '"') return value;
    if (c != '\\') {
      value += c;
      continue;
    }
    if (in.done()) return std::nullopt;
    const char escaped = in.text[in.at++];
    if (escaped == 'n') {
      value += '\n';
    } else if (escaped == '\\' || escaped == '"') {
      value += escaped;
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// `{k="v",...}` at the cursor (after '{'); an empty string, or why not.
std::string read_labels(line_reader& in, prometheus_sample& sample) {
  for (;;) {
    in.skip_blanks();
    if (in.peek() == '}') {
      ++in.at;
      return {};
    }
    const auto key = in.name();
    if (key.empty()) return "a label name was expected";
    in.skip_blanks();
    if (in.peek() != '=') return "'=' was expected after a label name";
    ++in.at;
    in.skip_blanks();
    if (in.peek() != '"') return "a quoted label value was expected";
    ++in.at;
    auto value = quoted(in);
    if (!value) return "a label value is not closed or has an unknown escape";
    sample.labels.emplace_back(std::string(key), std::move(*value));
    in.skip_blanks();
    if (in.peek() == ',') {
      ++in.at;
    } else if (in.peek() != '}') {
      return "',' or '}' was expected after a label";
    }
  }
}

// One sample line; an empty string, or why it cannot be read.
std::string read_sample(std::string_view line, prometheus_sample& sample) {
  line_reader in{line};
  const auto name = in.name();
  if (name.empty()) return "a metric name was expected";
  sample.name = std::string(name);
  in.skip_blanks();
  if (in.peek() == '{') {
    ++in.at;
    if (auto problem = read_labels(in, sample); !problem.empty()) return problem;
  }
  in.skip_blanks();
  const auto value = parse_value(in.token());
  if (!value) return "the value is not a number";
  sample.value = *value;
  in.skip_blanks();
  if (in.done() || in.peek() == '#') return {};  // an OpenMetrics exemplar may follow
  const auto timestamp = in.token();
  if (!parse_value(timestamp)) return "the timestamp is not a number";
  in.skip_blanks();
  if (!in.done() && in.peek() != '#') return "text after the timestamp";
  return {};
}

// "# TYPE name kind": records the kind (of a family `keep` accepts, when there is one).
void read_type(std::string_view line, prometheus_exposition& out, const std::function<bool(std::string_view)>& keep) {
  line_reader in{line};
  in.at = 1;
  in.skip_blanks();
  if (in.token() != "TYPE") return;
  in.skip_blanks();
  const auto name = in.name();
  in.skip_blanks();
  const auto kind = in.token();
  if (keep && !keep(name)) return;
  if (!name.empty() && !kind.empty()) out.types[std::string(name)] = std::string(kind);
}

}  // namespace

const std::string* prometheus_sample::label(std::string_view key) const {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string prometheus_sample::series_key() const {
  if (labels.empty()) return name;
  auto sorted = labels;
  std::sort(sorted.begin(), sorted.end());
  std::string key = name + "{";
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) key += ',';
    key += sorted[i].first + "=\"" + sorted[i].second + "\"";
  }
  return key + "}";
}

prometheus_exposition parse_prometheus_text(std::string_view text) { return parse_prometheus_text(text, nullptr); }

prometheus_exposition parse_prometheus_text(std::string_view text, const std::function<bool(std::string_view)>& keep) {
  prometheus_exposition out;
  std::size_t number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    auto line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
    if (line.empty()) continue;
    if (line.front() == '#') {
      read_type(line, out, keep);
      continue;
    }
    ++out.sample_lines;
    if (keep) {
      line_reader in{line};
      if (const auto name = in.name(); !name.empty() && !keep(name)) continue;
    }
    prometheus_sample sample;
    if (auto problem = read_sample(line, sample); !problem.empty()) {
      if (out.rejected_lines++ == 0) out.first_problem = fmt::format("line {}: {}", number, problem);
      continue;
    }
    out.samples.push_back(std::move(sample));
  }
  return out;
}

}  // namespace ironbench::serve
