#include "results/vllm_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/text_match.hpp"
#include "results/import_text.hpp"
#include "schema/serving.hpp"

namespace ironbench::results {
namespace {

// "mean_ttft_ms", "median_itl_ms", "std_tpot_ms", "p99_e2el_ms", "p99.9_ttft_ms".
bool is_latency_statistic(const std::string& key) {
  std::string_view rest = key;
  if (!rest.ends_with("_ms")) return false;
  rest.remove_suffix(3);
  const auto underscore = rest.find('_');
  if (underscore == std::string_view::npos) return false;
  const auto statistic = rest.substr(0, underscore);
  const auto metric = rest.substr(underscore + 1);
  bool known = statistic == "mean" || statistic == "median" || statistic == "std";
  if (!known && statistic.starts_with('p')) {
    text_scanner s(statistic.substr(1));
    known = !s.digits().empty() && (s.at_end() || (s.literal(".") && !s.digits().empty() && s.at_end()));
  }
  const auto& metrics = schema::latency_metrics();
  return known && std::find(metrics.begin(), metrics.end(), metric) != metrics.end();
}

// Other numbers of the result kept as values: throughputs and token totals.
const std::set<std::string>& other_numeric_keys() {
  namespace key = schema::vllm_key;
  static const std::set<std::string> keys = {key::request_throughput,      key::output_throughput,
                                             key::total_token_throughput,  key::request_goodput,
                                             key::max_output_tokens_per_s, key::max_concurrent_requests,
                                             key::total_input_tokens,      key::total_output_tokens};
  return keys;
}

// benchmark_serving.py of early 2025 wrote "request_goodput:" (with the colon).
std::string name_of(const std::string& field) {
  return field == "request_goodput:" ? std::string(schema::vllm_key::request_goodput) : field;
}

// Python's json module writes NaN and Infinity (an empty statistic, an unlimited rate),
// which JSON does not have: outside strings NaN becomes null (no value) and the infinities
// the strings "Infinity" and "-Infinity" (a request_rate; any other key refuses them as not
// a number). A number beyond the range of a double ("1e400") is refused here, with its line
// and key, before the JSON parser would fail on it with a message of its own.
std::string json_for_parsing(const std::string& text, const std::string& source) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  std::size_t line = 1;
  std::size_t string_start = 0;  // where the last string began (after its quote)
  std::string_view key;          // the last string followed by a colon
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\n') ++line;
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (ch == '"') {
        in_string = false;
        const auto after = text.find_first_not_of(" \t\r\n", i + 1);
        if (after != std::string::npos && text[after] == ':') {
          key = std::string_view(text).substr(string_start, i - string_start);
        }
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
      string_start = i + 1;
    }
    const auto rest = std::string_view(text).substr(i);
    if (rest.starts_with("NaN")) {
      out += "null";
      i += 2;
    } else if (rest.starts_with("-Infinity")) {
      out += "\"-Infinity\"";
      i += 8;
    } else if (rest.starts_with("Infinity")) {
      out += "\"Infinity\"";
      i += 7;
    } else if ((is_digit(ch) || (ch == '-' && i + 1 < text.size() && is_digit(text[i + 1]))) &&
               (i == 0 || std::string_view("[{,: \t\r\n\f\v").find(text[i - 1]) != std::string_view::npos)) {
      auto end = text.find_first_not_of("0123456789.eE+-", i);
      if (end == std::string::npos) end = text.size();
      const std::string number = text.substr(i, end - i);
      if (std::isinf(std::strtod(number.c_str(), nullptr))) {
        throw usage_error(
            key.empty() ? fmt::format("{}: line {}: {} is beyond the range of a number", source, line, excerpt(number))
                        : fmt::format("{}: line {}: \"{}\" is {}, beyond the range of a number", source, line,
                                      excerpt(key), excerpt(number)));
      }
      out += number;
      i = end - 1;
    } else {
      out += ch;
    }
  }
  return out;
}

std::vector<json> objects_of(const std::string& text, const std::string& source) {
  const auto content = trim_copy(json_for_parsing(text, source));
  std::vector<json> objects;
  try {
    auto doc = json::parse(content);
    if (doc.is_array()) {
      for (auto& e : doc) objects.push_back(std::move(e));
      if (objects.empty()) throw usage_error(fmt::format("{}: an empty JSON array, no vLLM results", source));
    } else {
      objects.push_back(std::move(doc));
    }
    return objects;
  } catch (const json::out_of_range& e) {
    // What json_for_parsing did not see as a number (a safety net: nothing known reaches it).
    throw usage_error(fmt::format("{}: a number beyond the range of a number ({})", source, e.what()));
  } catch (const json::parse_error& whole) {
    // JSON Lines: one object per line.
    const auto lines = split_lines(content);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (trim_copy(lines[i]).empty()) continue;
      try {
        objects.push_back(json::parse(lines[i]));
      } catch (const json::parse_error& e) {
        if (objects.empty()) throw usage_error(fmt::format("{}: not valid JSON ({})", source, whole.what()));
        throw usage_error(fmt::format("{}: line {}: not valid JSON ({})", source, i + 1, e.what()));
      } catch (const json::out_of_range& e) {
        throw usage_error(
            fmt::format("{}: line {}: a number beyond the range of a number ({})", source, i + 1, e.what()));
      }
    }
  }
  return objects;
}

std::optional<double> number_at(const json& object, const std::string& key, const std::string& where) {
  if (!object.contains(key) || object.at(key).is_null()) return std::nullopt;
  const auto& value = object.at(key);
  if (!value.is_number()) {
    throw usage_error(
        fmt::format("{}: \"{}\" is {}, not a number", where, excerpt(key), excerpt(core::json_text(value))));
  }
  return value.get<double>();
}

// A throughput, a latency or a duration: a number, not negative (null or NaN: absent).
std::optional<double> measured_at(const json& object, const std::string& key, const std::string& where) {
  const auto value = number_at(object, key, where);
  if (value && *value < 0) {
    throw usage_error(fmt::format("{}: \"{}\" is {}, a negative {}", where, excerpt(key),
                                  core::json_text(object.at(key)), key.ends_with("_ms") ? "time" : "amount"));
  }
  return value;
}

std::optional<std::int64_t> count_at(const json& object, const std::string& key, const std::string& where) {
  const auto value = number_at(object, key, where);
  if (!value) return std::nullopt;
  // 2^63 and above (and anything not whole) is no count: the cast of such a double is undefined.
  if (*value < 0 || *value >= 9.223372036854775808e18 || *value != std::floor(*value)) {
    throw usage_error(
        fmt::format("{}: \"{}\" is {}, not a count", where, key, excerpt(core::json_text(object.at(key)))));
  }
  return static_cast<std::int64_t>(*value);
}

std::string string_at(const json& object, const std::string& key) {
  if (!object.contains(key) || object.at(key).is_null()) return {};
  const auto& value = object.at(key);
  return value.is_string() ? value.get<std::string>() : core::json_text(value);
}

vllm_result result_of(const json& object, std::size_t index, std::size_t count, const std::string& source) {
  namespace key = schema::vllm_key;
  const auto where = count > 1 ? fmt::format("{}: result {}", source, index) : source;
  if (!object.is_object())
    throw usage_error(fmt::format("{}: JSON, but not a vLLM bench serve result (not an object)", where));
  bool has_metric = false;
  for (const auto& [field, value] : object.items()) {
    if (is_latency_statistic(field) || field == key::request_throughput || field == key::output_throughput) {
      has_metric = true;
    }
  }
  if (!has_metric) {
    throw usage_error(
        fmt::format("{}: JSON, but not a vLLM bench serve result (no request_throughput, "
                    "output_throughput or *_ttft_ms keys)",
                    where));
  }
  vllm_result r;
  r.index = index;
  r.original = object;
  r.backend = string_at(object, key::backend);
  r.model_id = string_at(object, key::model_id);
  r.tokenizer_id = string_at(object, key::tokenizer_id);
  r.date = string_at(object, key::date);
  r.burstiness = number_at(object, key::burstiness, where);
  r.duration_s = measured_at(object, key::duration, where);
  r.completed = count_at(object, key::completed, where);
  r.failed = count_at(object, key::failed, where);
  const auto num_prompts = count_at(object, key::num_prompts, where);
  if (num_prompts) {
    r.num_prompts = *num_prompts;
  } else if (r.completed) {
    r.num_prompts = *r.completed + r.failed.value_or(0);
  } else {
    throw usage_error(fmt::format("{}: vLLM result without num_prompts or completed", where));
  }
  if (!r.failed && num_prompts && r.completed) {
    if (*r.completed > *num_prompts) {
      throw usage_error(fmt::format("{}: completed ({}) exceeds num_prompts ({})", where, *r.completed, *num_prompts));
    }
    r.failed = *num_prompts - *r.completed;
  }
  if (!object.contains(key::request_rate))
    throw usage_error(fmt::format("{}: vLLM result without request_rate", where));
  const auto& rate = object.at(key::request_rate);
  if (rate.is_null() ||
      (rate.is_string() && (rate.get<std::string>() == "inf" || rate.get<std::string>() == "Infinity"))) {
    r.request_rate = "inf";
  } else if (rate.is_number() && rate.get<double>() > 0) {
    r.request_rate = schema::request_rate_text(rate.get<double>());
  } else {
    throw usage_error(fmt::format("{}: request_rate is {}, neither \"inf\" nor a rate", where, core::json_text(rate)));
  }
  if (const auto concurrency = count_at(object, key::max_concurrency, where)) r.max_concurrency = *concurrency;
  for (const auto& [field, value] : object.items()) {
    const std::string name = name_of(field);
    if (!is_latency_statistic(name) && !other_numeric_keys().count(name)) continue;
    if (const auto v = measured_at(object, field, where)) r.values[name] = *v;
  }
  if (object.contains("ttfts") && object.at("ttfts").is_array()) r.requests_detailed = object.at("ttfts").size();
  return r;
}

// The latencies against each other and against the duration: every request's latencies lie
// within the benchmark's duration; its TTFT comes before its E2EL, which is TTFT + TPOT x
// (output tokens - 1); and the requests in flight at once never exceed the concurrency.
void check_latencies(const vllm_result& r, consistency_check& check) {
  namespace key = schema::vllm_key;
  const auto value = [&](const std::string& name) -> std::optional<double> {
    const auto it = r.values.find(name);
    return it == r.values.end() ? std::nullopt : std::optional<double>(it->second);
  };
  const auto completed = r.completed.value_or(0);
  if (completed > 0 && r.duration_s && !(*r.duration_s > 0)) {
    check.contradiction(fmt::format("duration {:g} s with {} requests completed", *r.duration_s, completed));
  }
  // Each statistic but the spread (mean, median, pNN) of a latency is one of the requests' or
  // between them, and each request started and ended within the duration.
  const auto statistic_of = [](const std::string& name, const std::string& metric) -> std::string {
    const auto suffix = "_" + metric + "_ms";
    if (!name.ends_with(suffix)) return {};
    const auto statistic = name.substr(0, name.size() - suffix.size());
    return statistic == "std" ? std::string() : statistic;
  };
  if (r.duration_s && *r.duration_s > 0 && completed > 0) {
    const double limit_ms = *r.duration_s * 1e3;
    for (const auto& [name, v] : r.values) {
      for (const auto& metric : schema::latency_metrics()) {
        if (statistic_of(name, metric).empty()) continue;
        check.at_most(name, v, limit_ms, fmt::format("the {:g} s duration", *r.duration_s), "ms",
                      vllm_latency_agreement);
      }
    }
  }
  // TTFT <= E2EL request by request: so for the mean, the median and every percentile.
  for (const auto& [name, ttft] : r.values) {
    const auto statistic = statistic_of(name, "ttft");
    if (statistic.empty()) continue;
    const auto e2el_name = statistic + "_e2el_ms";
    if (const auto e2el = value(e2el_name)) {
      check.at_most(name, ttft, *e2el,
                    fmt::format("{} {:g} ms (a request's first token comes before its last)", e2el_name, *e2el), "ms",
                    vllm_latency_agreement);
    }
  }
  // E2EL - TTFT = TPOT x (output tokens - 1) for each request with two tokens or more: the mean
  // over requests of E2EL - TTFT, per output token after each first, is a mean of TPOTs weighted by
  // those tokens, so at least the smallest TPOT, itself at least mean - std x sqrt(n - 1).
  const auto mean_ttft = value("mean_ttft_ms"), mean_e2el = value("mean_e2el_ms");
  const auto mean_tpot = value("mean_tpot_ms"), std_tpot = value("std_tpot_ms");
  const auto output = value(key::total_output_tokens);
  if (mean_ttft && mean_e2el && mean_tpot && std_tpot && output && completed > 0 &&
      *output > static_cast<double>(completed)) {
    const double n = static_cast<double>(completed);
    const double weighted = n * (*mean_e2el - *mean_ttft) / (*output - n);
    const double lowest = *mean_tpot - *std_tpot * std::sqrt(n - 1);
    if (lowest > 0) {
      check.at_most(fmt::format("mean_tpot_ms - std_tpot_ms x sqrt({} - 1) (the lowest TPOT there can be)", completed),
                    lowest, weighted,
                    fmt::format("(mean_e2el_ms - mean_ttft_ms) x {} requests / ({:g} output tokens - {}), the "
                                "TPOT of their output tokens after the first",
                                completed, *output, completed),
                    "ms", vllm_latency_agreement);
    }
  }
  // The requests' E2ELs add up to at most the concurrency x the duration.
  double concurrency = value(key::max_concurrent_requests).value_or(0);
  if (concurrency <= 0) concurrency = static_cast<double>(r.max_concurrency);
  if (mean_e2el && concurrency > 0 && r.duration_s && *r.duration_s > 0 && completed > 0) {
    check.at_most(fmt::format("mean_e2el_ms x {} completed", completed), *mean_e2el * static_cast<double>(completed),
                  concurrency * *r.duration_s * 1e3,
                  fmt::format("{:g} requests in flight at most x the {:g} s duration", concurrency, *r.duration_s),
                  "ms", vllm_latency_agreement);
  }
}

// A result's throughputs against its totals over its duration, its latencies against each
// other and the duration, and each latency's percentiles (the median as p50) against their
// order.
consistency_check consistency_of(const vllm_result& r) {
  namespace key = schema::vllm_key;
  consistency_check check;
  const auto value = [&](const char* name) -> std::optional<double> {
    const auto it = r.values.find(name);
    return it == r.values.end() ? std::nullopt : std::optional<double>(it->second);
  };
  if (r.duration_s && *r.duration_s > 0) {
    const double duration = *r.duration_s;
    const auto input = value(key::total_input_tokens);
    const auto output = value(key::total_output_tokens);
    const auto per_second = [&](const char* name, std::optional<double> total, const std::string& what,
                                const char* unit) {
      const auto stated = value(name);
      if (!stated || !total) return;
      check.agree(name, *stated, *total / duration, fmt::format("{} / {:g} s", what, duration), unit,
                  vllm_throughput_agreement);
    };
    if (output) per_second(key::output_throughput, output, fmt::format("{:g} output tokens", *output), "tok/s");
    if (input && output) {
      per_second(key::total_token_throughput, *input + *output,
                 fmt::format("{:g} input + {:g} output tokens", *input, *output), "tok/s");
    }
    if (r.completed) {
      per_second(key::request_throughput, static_cast<double>(*r.completed),
                 fmt::format("{} completed requests", *r.completed), "req/s");
    }
  }
  check_latencies(r, check);
  for (const auto& metric : schema::latency_metrics()) {
    std::vector<std::pair<double, std::pair<std::string, double>>> percentiles;
    for (const auto& [name, v] : r.values) {
      const auto suffix = "_" + metric + "_ms";
      if (!name.ends_with(suffix)) continue;
      const auto statistic = name.substr(0, name.size() - suffix.size());
      double rank = 0;
      if (statistic == "median") {
        rank = 50;
      } else if (statistic.size() > 1 && statistic[0] == 'p') {
        const auto p = parse_number(std::string_view(statistic).substr(1));
        if (!p) continue;
        rank = *p;
      } else {
        continue;
      }
      percentiles.push_back({rank, {name, v}});
    }
    std::sort(percentiles.begin(), percentiles.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<std::string, double>> in_order;
    for (const auto& p : percentiles) in_order.push_back(p.second);
    check.ordered(in_order, "ms", {1e-9, 1e-9});
  }
  return check;
}

}  // namespace

std::vector<vllm_result> parse_vllm_results(const std::string& text, const std::string& source) {
  if (trim_copy(text).empty()) throw usage_error(fmt::format("{}: empty file, no vLLM results", source));
  const auto objects = objects_of(text, source);
  std::vector<vllm_result> results;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    try {
      results.push_back(result_of(objects[i], i + 1, objects.size(), source));
    } catch (const json::exception& e) {  // a value of an unexpected type
      throw usage_error(fmt::format("{}: malformed vLLM result ({})", source, e.what()));
    }
  }
  return results;
}

std::vector<core::case_result> vllm_cases(const std::vector<vllm_result>& results, const std::string& source) {
  namespace key = schema::vllm_key;
  std::vector<core::case_result> cases;
  for (const auto& r : results) {
    schema::serving_point point;
    point.device = !r.model_id.empty() ? r.model_id : !r.backend.empty() ? r.backend : std::string("unknown");
    point.max_concurrency = r.max_concurrency;
    point.request_rate = r.request_rate;
    point.num_prompts = r.num_prompts;
    point.values = r.values;
    if (r.failed) point.failed = static_cast<double>(*r.failed);
    std::vector<std::string> missing;
    auto c = schema::serving_case(point, &missing);
    for (const auto& [field, value] : r.original.items()) {
      const std::string name = name_of(field);
      if (!is_latency_statistic(name) || !r.values.count(name) || c.find_metric(name)) continue;
      c.metrics.push_back({name, r.values.at(name), "ms", schema::vllm_metric_description});
    }
    if (r.values.count(key::request_goodput)) {
      c.metrics.push_back(
          {key::request_goodput, r.values.at(key::request_goodput), "req/s", "requests meeting the SLOs per second"});
    }
    if (r.duration_s) c.metrics.push_back({key::duration, *r.duration_s, "s", "benchmark duration"});
    if (r.completed)
      c.metrics.push_back({key::completed, static_cast<double>(*r.completed), "requests", "completed requests"});
    c.notes["source"] = r.index > 1 || results.size() > 1 ? fmt::format("{} (result {})", source, r.index) : source;
    c.notes["imported_from"] =
        fmt::format("vLLM bench serve result{}", r.backend.empty() ? "" : " (backend " + r.backend + ")");
    c.notes["result"] = core::json_text(r.original);
    if (!r.model_id.empty()) c.notes["model_id"] = r.model_id;
    if (!r.tokenizer_id.empty()) c.notes["tokenizer_id"] = r.tokenizer_id;
    if (!r.date.empty()) c.notes["date"] = r.date;
    if (r.burstiness) c.notes["burstiness"] = fmt::format("{:g}", *r.burstiness);
    if (!r.original.contains(key::num_prompts)) c.notes["num_prompts"] = "not in the file: completed + failed";
    if (!missing.empty()) c.notes["missing"] = fmt::format("not in the file: {}", fmt::join(missing, ", "));
    if (r.requests_detailed > 0) {
      c.notes["requests_detailed"] = fmt::format("{} requests (ttfts, itls, ... in notes.result)", r.requests_detailed);
    }
    // ironbench serve's own result files say whether the client kept its schedule.
    if (r.original.contains(key::client) && r.original.at(key::client).is_object()) {
      const auto& client = r.original.at(key::client);
      if (client.contains(key::client_valid) && client.at(key::client_valid).is_boolean() &&
          !client.at(key::client_valid).get<bool>()) {
        c.status = core::case_status::invalid;
        c.reason = string_at(client, key::client_invalid_reason);
        if (c.reason.empty()) c.reason = "the load generator fell behind its schedule";
      }
    }
    consistency_of(r).apply_to(c);
    if (r.completed && *r.completed == 0) {
      c.status = core::case_status::failed;
      c.reason = fmt::format("no request completed ({} failed)", r.failed.value_or(r.num_prompts));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace ironbench::results
