#include "serve/metrics/ttft_breakdown.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "serve/metrics/engine_metric_names.hpp"
#include "serve/metrics/histogram_delta.hpp"

namespace ironbench::serve {
namespace {

constexpr const char* stages[] = {"queue", "prefill", "decode"};

// Every sample of one answer, the stage histograms' buckets included.
std::vector<prometheus_sample> all_samples(const endpoint_scrape& scrape) {
  auto samples = scrape.samples;
  samples.insert(samples.end(), scrape.stage_buckets.begin(), scrape.stage_buckets.end());
  return samples;
}

struct stage_increase {
  const char* series = nullptr;
  histogram_reading increase;  // a stage-seconds counter: its increase as the sum, count 0
  bool from_counter = false;
};

struct endpoint_stages {
  std::string engine;
  std::map<std::string, stage_increase> stages;  // stage -> what the point added
};

// What endpoint `e` published between its first and its last answer of the point.
std::optional<endpoint_stages> stages_of(const std::vector<scrape_round>& rounds, std::size_t e) {
  std::optional<std::size_t> first, last;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (e >= rounds[i].endpoints.size() || !rounds[i].endpoints[e].ok) continue;
    if (!first) first = i;
    last = i;
  }
  if (!first || *first == *last) return std::nullopt;
  const auto before = all_samples(rounds[*first].endpoints[e]);
  const auto after = all_samples(rounds[*last].endpoints[e]);
  for (const auto& engine : known_engines()) {
    endpoint_stages out{engine, {}};
    for (const auto& row : engine_histogram_table()) {
      if (row.engine != engine) continue;
      const auto b = read_histogram(before, row.series);
      const auto a = read_histogram(after, row.series);
      if (!b || !a) continue;
      out.stages[row.stage] = {row.series, histogram_increase(*b, *a)};
    }
    if (!out.stages.empty()) return out;
  }
  // No histogram: the stage-seconds counters of an engine that has them (llama.cpp's server).
  for (const auto& engine : known_engines()) {
    endpoint_stages out{engine, {}};
    for (const auto& row : engine_stage_counter_table()) {
      if (row.engine != engine) continue;
      const auto value = [&](const std::vector<prometheus_sample>& samples) -> std::optional<double> {
        for (const auto& sample : samples)
          if (sample.name == row.series && std::isfinite(sample.value)) return sample.value;
        return std::nullopt;
      };
      const auto b = value(before);
      const auto a = value(after);
      if (!b || !a) continue;
      stage_increase stage{row.series, {}, true};
      stage.increase.sum = *a >= *b ? *a - *b : *a;  // below the first reading: the server restarted
      out.stages[row.stage] = stage;
    }
    if (!out.stages.empty()) return out;
  }
  return std::nullopt;
}

json number_or_null(std::optional<double> v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

// A counter stage: its seconds over the requests the point completed (no percentiles).
json counter_stage_json(const stage_increase& s, double requests) {
  json j = {{"series", s.series}, {"requests", requests}, {"source", "counter"}};
  j["mean_ms"] = requests > 0 ? json(s.increase.sum / requests * 1000) : json(nullptr);
  return j;
}

json stage_json(const stage_increase& s) {
  json j = {{"series", s.series}, {"requests", s.increase.count}, {"source", "histogram"}};
  const auto mean = histogram_mean(s.increase);
  j["mean_ms"] = number_or_null(mean ? std::optional<double>(*mean * 1000) : std::nullopt);
  for (const double p : ttft_breakdown_percentiles) {
    const auto q = histogram_quantile(s.increase, p / 100);
    j[fmt::format("p{:g}_ms", p)] = number_or_null(q ? std::optional<double>(*q * 1000) : std::nullopt);
  }
  return j;
}

}  // namespace

ttft_breakdown summarize_ttft_breakdown(const std::vector<scrape_round>& rounds, const std::vector<std::string>& urls,
                                        const std::vector<std::string>& roles, double client_mean_ttft_ms,
                                        double client_mean_e2el_ms, double completed_requests) {
  ttft_breakdown out;
  std::vector<std::string> order;  // roles in the order of their first URL
  std::map<std::string, json> role_urls;
  std::map<std::string, std::string> role_engine;
  std::map<std::string, std::map<std::string, stage_increase>> by_role;
  for (std::size_t e = 0; e < urls.size(); ++e) {
    const std::string role = e < roles.size() && !roles[e].empty() ? roles[e] : "all";
    if (role_urls.count(role) == 0) {
      order.push_back(role);
      role_urls[role] = json::array();
    }
    role_urls[role].push_back(urls[e]);
    const auto found = stages_of(rounds, e);
    if (!found) continue;
    if (role_engine.count(role) == 0) role_engine[role] = found->engine;
    auto& sums = by_role[role];
    for (const auto& [stage, s] : found->stages) {
      const auto it = sums.find(stage);
      if (it == sums.end()) {
        sums[stage] = s;
      } else if (s.from_counter) {
        it->second.increase.sum += s.increase.sum;  // replicas: their seconds add up
      } else {
        it->second.increase = histogram_add(it->second.increase, s.increase);
      }
    }
  }
  if (by_role.empty()) return out;
  json roles_json = json::object();
  double server_ttft = 0;
  bool server_ttft_known = true, any_counter = false;
  const bool one_role = order.size() == 1 && order.front() == "all";
  for (const auto& role : order) {
    json r = {{"urls", role_urls[role]}};
    r["engine"] = role_engine.count(role) > 0 ? json(role_engine[role]) : json(nullptr);
    const auto& sums = by_role[role];
    for (const char* stage : stages) {
      const auto it = sums.find(stage);
      if (it == sums.end()) {
        if (std::string(stage) != "decode") server_ttft_known = false;
        continue;
      }
      any_counter = any_counter || it->second.from_counter;
      auto j = it->second.from_counter ? counter_stage_json(it->second, completed_requests) : stage_json(it->second);
      const auto prefix = one_role ? std::string("server_") : fmt::format("server_{}_", role);
      for (const char* stat : {"mean", "p50", "p90", "p99"}) {
        const auto key = fmt::format("{}_ms", stat);
        if (j.contains(key) && j.at(key).is_number())
          out.values[fmt::format("{}{}_time_{}", prefix, stage, key)] = j.at(key).get<double>();
      }
      if (std::string(stage) != "decode") {
        if (j.at("mean_ms").is_number()) {
          server_ttft += j.at("mean_ms").get<double>();
        } else {
          server_ttft_known = false;
        }
      }
      r[stage] = std::move(j);
    }
    roles_json[role] = std::move(r);
  }
  std::string method =
      "per-request histograms' increase over the point: mean = sum/count; percentiles interpolated inside the "
      "histogram's buckets";
  if (any_counter) {
    method +=
        "; a stage with source \"counter\" (an engine without histograms: llama.cpp's server): the increase of "
        "its seconds counter over the point / the requests the point completed, a mean from counters, no "
        "percentiles";
  }
  out.summary = {{"method", method},
                 {"roles", std::move(roles_json)},
                 {"client_mean_ttft_ms", client_mean_ttft_ms},
                 {"client_mean_e2el_ms", client_mean_e2el_ms},
                 {"client_mean_decode_ms", client_mean_e2el_ms - client_mean_ttft_ms}};
  if (server_ttft_known) {
    out.summary["server_ttft_mean_ms"] = server_ttft;
    out.summary["outside_server_mean_ms"] = client_mean_ttft_ms - server_ttft;
    out.values["ttft_outside_server_mean_ms"] = client_mean_ttft_ms - server_ttft;
  }
  return out;
}

std::string ttft_breakdown_text(const json& summary) {
  if (!summary.is_object()) return {};
  std::string out = fmt::format("{:-^50}\n", " Where TTFT goes (server stage times) ");
  const auto ms = [](const json& stage, const char* key) {
    return stage.contains(key) && stage.at(key).is_number() ? fmt::format("{:.2f}", stage.at(key).get<double>())
                                                            : std::string("-");
  };
  for (const auto& [role, r] : summary.at("roles").items()) {
    const auto engine = r.at("engine").is_string() ? r.at("engine").get<std::string>() : std::string("none found");
    for (const char* stage : stages) {
      if (!r.contains(stage)) continue;
      const auto& s = r.at(stage);
      if (s.value("source", "") == "counter") {
        out += fmt::format(
            "{:<40}{}\n", fmt::format("{}{} (ms, mean from counters):", role == "all" ? "" : role + " ", stage),
            fmt::format("{}  ({} requests, {})", ms(s, "mean_ms"), s.at("requests").get<double>(), engine));
        continue;
      }
      out +=
          fmt::format("{:<40}{}\n", fmt::format("{}{} (ms, mean p50/p90/p99):", role == "all" ? "" : role + " ", stage),
                      fmt::format("{} {}/{}/{}  ({} requests, {})", ms(s, "mean_ms"), ms(s, "p50_ms"), ms(s, "p90_ms"),
                                  ms(s, "p99_ms"), s.at("requests").get<double>(), engine));
    }
  }
  out += fmt::format("{:<40}{:.2f}\n", "Client TTFT (ms, mean):", summary.at("client_mean_ttft_ms").get<double>());
  if (summary.contains("outside_server_mean_ms")) {
    out += fmt::format("{:<40}{:.2f}\n",
                       "Outside the server (ms, mean):", summary.at("outside_server_mean_ms").get<double>());
    out += "  (client TTFT - server queue - prefill: network, client and what precedes the engine's queue)\n";
  }
  out += fmt::format("{:<40}{:.2f}\n",
                     "Client E2EL - TTFT (ms, mean):", summary.at("client_mean_decode_ms").get<double>());
  return out;
}

}  // namespace ironbench::serve
