#include "serve/workload/lora_adapters.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/units.hpp"

namespace ironbench::serve {

lora_selection parse_lora_modules(const std::string& text) {
  lora_selection out;
  std::set<std::string> seen;
  std::size_t at = 0;
  while (at <= text.size()) {
    const auto comma = text.find(',', at);
    const auto item = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? text.size() + 1 : comma + 1;
    lora_adapter adapter;
    const auto colon = item.rfind(':');
    adapter.name = item.substr(0, colon);
    if (colon != std::string::npos) {
      adapter.weight = parse_number(item.substr(colon + 1), "--lora-modules " + adapter.name);
      if (!(adapter.weight > 0) || !std::isfinite(adapter.weight)) {
        throw usage_error(fmt::format("--lora-modules: the weight of '{}' must be a positive number, not '{}'",
                                      adapter.name, item.substr(colon + 1)));
      }
      out.weighted = true;
    }
    if (adapter.name.empty()) {
      throw usage_error(fmt::format("--lora-modules takes adapter names (a,b,c or a:3,b:1), not '{}'", text));
    }
    if (!seen.insert(adapter.name).second) {
      throw usage_error(fmt::format("--lora-modules names '{}' twice", adapter.name));
    }
    out.adapters.push_back(std::move(adapter));
  }
  return out;
}

void set_lora_route(lora_selection& selection, const std::string& text, bool checked) {
  if (text == "auto") {
    selection.route = checked ? lora_route::automatic : lora_route::model_name;
  } else if (text == "model") {
    selection.route = lora_route::model_name;
  } else if (text == "lora-field") {
    selection.route = lora_route::lora_field;
  } else {
    throw usage_error(fmt::format("--lora-by takes auto, model or lora-field, not '{}'", text));
  }
  if (selection.route != lora_route::lora_field || checked) return;
  for (auto& adapter : selection.adapters) {
    const auto& name = adapter.name;
    const bool digits = !name.empty() && name.size() < 7 && name.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) {
      throw usage_error(fmt::format(
          "--lora-by lora-field with --no-adapter-check takes the server's adapter ids (0,1 as GET /lora-adapters "
          "lists them), not '{}'",
          name));
    }
    adapter.server_id = std::stoi(name);
  }
}

std::vector<std::size_t> assign_adapters(std::size_t units, const lora_selection& selection, std::uint64_t seed) {
  std::vector<std::size_t> out(units, 0);
  const auto& adapters = selection.adapters;
  if (adapters.empty()) return out;
  if (!selection.weighted) {
    for (std::size_t i = 0; i < units; ++i) out[i] = i % adapters.size();
    return out;
  }
  double total = 0;
  for (const auto& a : adapters) total += a.weight;
  // The draws are made from the generator's bits (std::mt19937_64 is the same everywhere; the
  // standard's distributions are not), from a stream of their own beside the prompts'.
  std::mt19937_64 random(seed ^ 0x10a4'ada9'7e55'0001ULL);
  for (std::size_t i = 0; i < units; ++i) {
    const double u = static_cast<double>(random() >> 11) * 0x1.0p-53 * total;
    double sum = 0;
    std::size_t k = 0;
    for (; k + 1 < adapters.size(); ++k) {
      sum += adapters[k].weight;
      if (u < sum) break;
    }
    out[i] = k;
  }
  return out;
}

std::string body_with_model(const std::string& body, const std::string& model) {
  auto j = json::parse(body, nullptr, false);
  IRONBENCH_CHECK(!j.is_discarded() && j.is_object(), "a request body is not a JSON object");
  j["model"] = model;
  return core::json_text(j);
}

std::string body_with_lora(const std::string& body, int id) {
  auto j = json::parse(body, nullptr, false);
  IRONBENCH_CHECK(!j.is_discarded() && j.is_object(), "a request body is not a JSON object");
  j["lora"] = json::array({{{"id", id}, {"scale", 1.0}}});
  return core::json_text(j);
}

void apply_lora_adapters(std::vector<prepared_request>& requests, const lora_selection& selection, std::uint64_t seed) {
  if (!selection.enabled()) return;
  // One unit per request, or per conversation (its turns follow each other in the list).
  std::map<std::size_t, std::size_t> unit_of_session;
  std::vector<std::size_t> unit(requests.size());
  std::size_t units = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto session = requests[i].session;
    if (session == no_session) {
      unit[i] = units++;
    } else {
      const auto [it, added] = unit_of_session.emplace(session, units);
      if (added) ++units;
      unit[i] = it->second;
    }
  }
  const auto chosen = assign_adapters(units, selection, seed);
  const bool by_field = selection.route == lora_route::lora_field;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    auto& r = requests[i];
    const auto& adapter = selection.adapters[chosen[unit[i]]];
    IRONBENCH_CHECK(!by_field || adapter.server_id >= 0, "a LoRA adapter without the server's id");
    const auto name_it = [by_field, name = adapter.name, id = adapter.server_id](const std::string& body) {
      return by_field ? body_with_lora(body, id) : body_with_model(body, name);
    };
    r.adapter = adapter.name;
    r.body = name_it(r.body);
    if (r.body_for_answers) {
      r.body_for_answers = [inner = std::move(r.body_for_answers), name_it](const std::vector<std::string>& answers) {
        auto turn = inner(answers);
        turn.body = name_it(turn.body);
        return turn;
      };
    }
  }
}

json adapter_metrics(const std::vector<request_record>& records, double duration_s, const lora_selection& selection) {
  metric_selection statistics;
  statistics.metrics = {"ttft", "tpot"};
  statistics.percentiles = {99};
  json out = json::object();
  for (const auto& adapter : selection.adapters) {
    std::vector<request_record> mine;
    for (const auto& r : records) {
      if (r.adapter == adapter.name) mine.push_back(r);
    }
    const auto m = serving_metrics(mine, duration_s, goodput_slo{}, statistics);
    json a = {{"requests", mine.size()}};
    for (const char* key : {"completed", "failed", "request_throughput", "output_throughput", "total_output_tokens",
                            "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
                            "p99_tpot_ms", "mean_itl_ms", "errors_by_class"}) {
      a[key] = m.at(key);
    }
    if (selection.weighted) a["weight"] = adapter.weight;
    for (const auto& r : mine) {
      if (r.success) continue;
      a["first_error"] = fmt::format("{}: {}", r.error_class, r.error);
      break;
    }
    out[adapter.name] = std::move(a);
  }
  return out;
}

std::string adapter_summary(const json& per_adapter) {
  if (per_adapter.empty()) return "";
  std::string out = fmt::format("{:-^50}\n", "LoRA adapters");
  for (const auto& [name, a] : per_adapter.items()) {
    const auto requests = a.at("requests").get<std::size_t>();
    const auto completed = a.at("completed").get<std::size_t>();
    out += fmt::format("adapter {}: {} of {} completed", name, completed, requests);
    if (completed > 0) {
      out += fmt::format(
          ", {:.2f} output tok/s, TTFT median {:.2f} / P99 {:.2f} ms, TPOT median {:.2f} / P99 {:.2f} ms",
          a.at("output_throughput").get<double>(), a.at("median_ttft_ms").get<double>(),
          a.at("p99_ttft_ms").get<double>(), a.at("median_tpot_ms").get<double>(), a.at("p99_tpot_ms").get<double>());
    }
    if (a.contains("first_error")) out += fmt::format("; first error {}", a.at("first_error").get<std::string>());
    out += "\n";
  }
  return out;
}

}  // namespace ironbench::serve
