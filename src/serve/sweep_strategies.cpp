#include "serve/sweep_strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "schema/serving.hpp"
#include "serve/chat/templated_prompt_lengths.hpp"
#include "serve/request_kinds.hpp"
#include "serve/saturation.hpp"
#include "serve/slo_search.hpp"

namespace ironbench::serve {

bool sweep_run::measure(double concurrency, double rate) {
  load.request_rate = rate;
  load.max_concurrency = static_cast<int>(concurrency);
  const std::int64_t count = s.num_prompts_per_concurrency > 0 && concurrency > 0
                                 ? s.num_prompts_per_concurrency * static_cast<std::int64_t>(concurrency)
                                 : s.num_prompts;
  const auto total = static_cast<std::size_t>(count + s.num_warmups);
  const dataset_inputs inputs{s.datasets, s.body, s.dataset_path, total, s.load.seed, tokenizer.get(), vocab};
  const bool named = !s.save.result_filename.empty() && out.points.empty() && single_point;
  auto requests = build_point_requests(s, load, inputs);
  if (chat_template) chat::count_templated_prompts(requests, chat_template, *tokenizer);
  add_synthetic_images(requests, s.images, s.load.seed);  // after the count: it is of the text
  // --extra-body's max_tokens replaces the dataset's in every body: usage is judged by it.
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!s.body.extra.contains(key) || !s.body.extra.at(key).is_number_integer()) continue;
    for (auto& r : requests) r.max_tokens = s.body.extra.at(key).get<std::int64_t>();
  }
  return run_point(s, load, std::move(requests), named, cancel, callbacks, out);
}

namespace {

// Whether the values of a sweep axis rise (0, unlimited concurrency, counts as the highest).
bool rising(std::vector<double> values) {
  for (auto& v : values) v = v == 0 ? std::numeric_limits<double>::infinity() : v;
  return std::adjacent_find(values.begin(), values.end(), std::greater_equal<>()) == values.end();
}

// Whether `cancel` is set on any rank (every rank must ask, in the same order).
bool cancelled(const sweep_run& run) {
  const bool mine = run.cancel != nullptr && run.cancel->load();
  return run.s.ranks.any(mine);
}

// The case of a search's answer: the highest load that met the objectives and what the point
// at that load measured.
core::case_result limit_case(const sweep_run& run, const search_result& result) {
  const bool by_rate = run.s.search->axis == search_axis::rate;
  core::case_result c;
  c.benchmark = "serve_slo_limit";
  c.device = fmt::format("{}", fmt::join(run.load.base_urls, ","));
  c.params.set("search", std::string(by_rate ? "rate" : "concurrency"));
  c.params.set("slo", run.s.objectives.text());
  c.notes["ended"] = result.ended;
  if (!result.best) {
    c.status = core::case_status::failed;
    c.reason = fmt::format("no load met {}: {}", run.s.objectives.text(), result.ended);
    return c;
  }
  c.metrics.push_back({by_rate ? "max_request_rate" : "max_concurrency", *result.best,
                       by_rate ? "requests/s" : "requests", "the highest load that met the SLOs"});
  // Each probe is one point, in order: the best one's measurements.
  const auto first = run.out.points.size() - result.probes.size();
  for (std::size_t i = 0; i < result.probes.size(); ++i) {
    if (result.probes[i].load != *result.best || !result.probes[i].outcome.met) continue;
    const auto& point = run.out.points[first + i];
    for (const char* key : {"output_throughput", "request_throughput"}) {
      c.metrics.push_back({key, point.value(key, 0.0), schema::serving_metric_unit(key), "at that load"});
    }
  }
  return c;
}

}  // namespace

// Every concurrency x rate, stopping an axis of rising load where it saturates.
void run_grid(sweep_run& run) {
  const auto& s = run.s;
  const bool by_rate = s.rates.size() > 1;
  const bool judge = rising(by_rate ? s.rates : s.concurrencies);
  const bool reporting = s.ranks.rank == 0;
  std::vector<json> axis;
  for (double concurrency : s.concurrencies) {
    if (by_rate) axis.clear();
    for (double rate : s.rates) {
      if (cancelled(run)) return;
      if (s.ranks.any(run.measure(concurrency, rate))) return;
      saturation_check check;
      if (reporting) {
        axis.push_back(run.out.points.back());
        if (judge) check = detect_saturation(axis);
      }
      if (!s.ranks.rank0_says(check.saturated)) continue;
      if (reporting) {
        run.out.cases.back().notes["saturation"] = check.reason;
        run.out.settings["saturation"].push_back({{"point", run.out.points.size() - 1}, {"reason", check.reason}});
        say(run.callbacks.console, fmt::format("saturated: {}{}\n", check.reason,
                                               s.stop_at_saturation ? "; the higher loads are skipped" : ""));
      }
      if (!s.stop_at_saturation) continue;
      if (!by_rate) return;
      break;
    }
  }
}

// --search: the highest load meeting --slo, each probe a point of its own.
void run_search(sweep_run& run) {
  const auto& s = run.s;
  const auto& search = *s.search;
  const bool by_rate = search.axis == search_axis::rate;
  const auto probe = [&](double value) -> probe_outcome {
    if (cancelled(run)) return {false, false, "interrupted"};
    const bool interrupted =
        by_rate ? run.measure(s.concurrencies.front(), value) : run.measure(value, s.rates.front());
    if (s.ranks.any(interrupted)) return {false, false, "interrupted"};
    probe_outcome o;
    if (s.ranks.rank == 0) {
      auto& c = run.out.cases.back();
      if (c.status != core::case_status::valid) {
        o = {false, false, c.reason};
      } else {
        const auto verdict = judge_slo(run.out.points.back(), s.objectives);
        c.notes["slo"] = verdict.met ? "met" : "missed: " + verdict.why;
        say(run.callbacks.console, fmt::format("SLO probe {} {:g}: {}\n", by_rate ? "request rate" : "max concurrency",
                                               value, verdict.met ? "met" : "missed (" + verdict.why + ")"));
        o = {true, verdict.met, verdict.why};
      }
    }
    // The other ranks follow rank 0's verdict.
    o.measured = s.ranks.rank0_says(o.measured);
    o.met = s.ranks.rank0_says(o.met);
    return o;
  };
  const auto result = search_limit(search, probe);
  if (s.ranks.rank != 0) return;
  json probes = json::array();
  for (const auto& p : result.probes) {
    probes.push_back(
        {{"load", p.load}, {"met", p.outcome.met}, {"measured", p.outcome.measured}, {"why", p.outcome.why}});
  }
  run.out.settings["slo_search"] = {
      {"axis", by_rate ? "rate" : "concurrency"},
      {"slo", s.objectives.text()},
      {"probes", probes},
      {"best", result.best ? json(*result.best) : json(nullptr)},
      {"lowest_failing", result.lowest_failing ? json(*result.lowest_failing) : json(nullptr)},
      {"ended", result.ended}};
  run.out.cases.push_back(limit_case(run, result));
  if (!result.best) run.out.invalid = true;
  const auto unit = by_rate ? " requests/s" : " in flight";
  say(run.callbacks.console, result.best
                                 ? fmt::format("SLO search ({}): highest load meeting {}: {:g}{}; {} ({} probes)\n",
                                               by_rate ? "rate" : "concurrency", s.objectives.text(), *result.best,
                                               unit, result.ended, result.probes.size())
                                 : fmt::format("SLO search ({}): no load met {}: {}\n",
                                               by_rate ? "rate" : "concurrency", s.objectives.text(), result.ended));
}

}  // namespace ironbench::serve
