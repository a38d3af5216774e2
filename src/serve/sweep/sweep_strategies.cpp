#include "serve/sweep/sweep_strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>

#include "schema/serving.hpp"
#include "serve/client/client_ranks.hpp"
#include "serve/common/prompt_identity.hpp"
#include "serve/point/probe_deadline.hpp"
#include "serve/sweep/capacity_estimate.hpp"
#include "serve/sweep/output_check.hpp"
#include "serve/sweep/saturation.hpp"
#include "serve/sweep/search_plan.hpp"
#include "serve/sweep/slo_search.hpp"
#include "serve/workload/request_kinds.hpp"
#include "serve/workload/templated_prompt_lengths.hpp"

namespace ironbench::serve {
namespace {

// The point just measured (rank 0): its prompts' seed, and a warning when the server says it
// served most of the point's prompt tokens from its prefix cache: its prefill is then not that
// of a cold point, and a curve mixing the two is not comparable (docs/serving-metrics.md).
void note_prefix_cache(sweep_run& run, std::uint64_t seed) {
  const auto& point = run.out.points.back();
  auto& c = run.out.cases.back();
  c.notes["prompt_seed"] = std::to_string(seed);
  const auto hit = point.find("server_prefix_cache_hit_percent_mean");
  if (hit == point.end() || !hit->is_number()) return;
  const double percent = hit->get<double>();
  if (!(percent > run.s.prefix_cache_warn_percent)) return;
  const bool reused = run.s.reuse_prompts || run.s.loaded_reference != nullptr;
  const auto why = fmt::format(
      "{:.1f} % of the prompt tokens were served from the server's prefix cache (more than {:g} %): the point's "
      "TTFT and throughput are those of warm prefill{}",
      percent, run.s.prefix_cache_warn_percent,
      reused ? ", as every point sends the same prompts (--reuse-prompts or --check-outputs) or the server saw "
               "them before the run"
             : "; the dataset repeats prompts, or the server saw them before this point");
  c.notes["prefix_cache"] = why;
  run.out.settings["prefix_cache_warnings"].push_back({{"point", run.out.points.size() - 1}, {"why", why}});
  say(run.callbacks.console, "warning: " + why + "\n");
}

}  // namespace

std::uint64_t sweep_run::next_seed() {
  const bool reuse = s.reuse_prompts || s.loaded_reference != nullptr;
  return point_seed(s.load.seed, reuse ? 0 : prompt_sets++);
}

bool sweep_run::measure(double concurrency, double rate, std::int64_t requests_wanted) {
  load.request_rate = rate;
  load.max_concurrency = static_cast<int>(concurrency);
  load.seed = next_seed();
  std::int64_t count = s.num_prompts_per_concurrency > 0 && concurrency > 0
                           ? s.num_prompts_per_concurrency * static_cast<std::int64_t>(concurrency)
                           : s.num_prompts;
  if (requests_wanted > 0) count = requests_wanted;
  count = timed_point_requests(load, count);  // --duration: the arrivals it holds, capped
  const bool named = !s.save.result_filename.empty() && out.points.empty() && single_point;
  const auto points_before = out.points.size();
  const bool interrupted = run_point(s, load, prepare(count), named, cancel, callbacks, out);
  if (out.points.size() > points_before) note_prefix_cache(*this, load.seed);
  return interrupted;
}

std::vector<prepared_request> sweep_run::prepare(std::int64_t count) {
  const auto total = static_cast<std::size_t>(count + s.num_warmups);
  // Ctrl-C stops a large point's building (a single client process: ranks build and send in
  // step, and one that stopped early alone would leave the others waiting for it).
  const auto* stop = s.ranks.several() ? nullptr : cancel;
  const dataset_inputs inputs{s.datasets, s.body, s.dataset_path, total, load.seed, tokenizer.get(), vocab, stop};
  auto requests = build_point_requests(s, load, inputs);
  if (chat_template) chat::count_templated_prompts(requests, chat_template, *tokenizer);
  add_synthetic_images(requests, s.images, load.seed);  // after the count: it is of the text
  // --extra-body's max_tokens replaces the dataset's in every body: usage is judged by it.
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (!s.body.extra.contains(key) || !s.body.extra.at(key).is_number_integer()) continue;
    for (auto& r : requests) r.max_tokens = s.body.extra.at(key).get<std::int64_t>();
  }
  // Prompt identities: for the result file's prompt_hashes and --check-outputs (a later turn
  // of a conversation is built from the server's answers when it is sent: it has none).
  if ((s.save.save_result && s.save.save_detailed) || s.loaded_reference) {
    std::vector<std::string> hashes;
    for (auto& r : requests) {
      if (r.session == no_session || r.turn == 0) r.prompt_hash = prompt_hash(r.body);
      hashes.push_back(r.prompt_hash);
    }
    if (s.loaded_reference && out.points.empty()) require_shared_prompts(hashes, *s.loaded_reference);
  }
  return requests;
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
  c.notes["outcome"] = to_string(result.verdict);
  if (!result.best) {
    // Missed: every load probed was judged down to the lowest. Could not judge: the lowest
    // load probed was not judged, so nothing says the objectives were missed there.
    const auto verdict = result.verdict;
    c.status = verdict == search_verdict::missed ? core::case_status::failed : core::case_status::invalid;
    c.reason = verdict == search_verdict::missed
                   ? fmt::format("no load met {}: {}", run.s.objectives.text(), result.ended)
               : verdict == search_verdict::unjudged
                   ? fmt::format("could not judge whether any load meets {}: {}", run.s.objectives.text(), result.ended)
                   : result.ended;
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

// The capacity estimate: a closed-loop burst of --search-estimate-concurrency requests in
// flight (each rank its share, their rates summed), cut after --search-estimate-duration. Not a
// point of the run: recorded in the search's settings.
capacity_estimate run_capacity_estimate(sweep_run& run, double& elapsed_s, bool& interrupted) {
  const auto& s = run.s;
  const auto& search = *s.search;
  const auto& ranks = s.ranks;
  run.load.seed = run.next_seed();
  auto requests = run.prepare(static_cast<std::int64_t>(estimate_requests(search.estimate_concurrency)));
  auto burst = run.load;
  burst.request_rate = std::numeric_limits<double>::infinity();
  burst.rank = ranks.rank;
  burst.ranks = ranks.size;
  burst.max_concurrency = concurrency_share(search.estimate_concurrency, ranks.rank, ranks.size);
  burst.keep_generated_text = false;
  burst.on_progress = nullptr;
  if (ranks.several()) ranks.barrier();
  const auto started = std::chrono::steady_clock::now();
  load_result result;
  bool stopped_by_user = false;
  {
    probe_deadline deadline(run.cancel, search.estimate_duration_s);
    result = run_load(requests, burst, deadline.flag());
    stopped_by_user = result.interrupted && !deadline.expired();
  }
  elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  interrupted = ranks.any(stopped_by_user);
  auto e = estimate_capacity(result.records);
  if (ranks.several()) {
    // The group's completion rate is the sum of the ranks'; rank 0's latency stands for all.
    e.ok = ranks.rank0_says(e.ok);
    e.requests_per_s = ranks.sum(e.requests_per_s);
    e.max_e2el_s = ranks.sum(ranks.rank == 0 ? e.max_e2el_s : 0.0);
    elapsed_s = ranks.sum(ranks.rank == 0 ? elapsed_s : 0.0);
  }
  return e;
}

// The plan of a search: its start (the estimate's rate, or --search-start), how probes are
// sized (requests per second at a load) and the drain each is allowed.
search_plan make_plan(const search_settings& search, const std::optional<capacity_estimate>& estimate,
                      double estimate_s) {
  const bool by_rate = search.axis == search_axis::rate;
  search_plan plan;
  plan.start = search.start;
  plan.start_basis = "--search-start";
  plan.estimate_s = estimate_s;
  plan.drain_s = search.probe_duration_s;
  const bool estimated = estimate && estimate->ok;
  if (estimate) {
    // Four times the longest request of the burst (at least the probe's duration; when none
    // completed in the burst, four times its length).
    plan.drain_s =
        std::max(search.probe_duration_s, 4 * (estimated ? estimate->max_e2el_s : search.estimate_duration_s));
  }
  if (by_rate) {
    plan.rate_at = [](double load) { return load; };
    if (estimated && search.start_from_estimate) {
      plan.start = std::min(estimate->requests_per_s, search.max);
      plan.start_basis = "the capacity estimate";
    }
    return plan;
  }
  // Concurrency: the estimate's rate scaled down below its concurrency; without one, each
  // request taken to last the whole burst.
  const double burst = search.estimate_concurrency;
  const double rate = estimated ? estimate->requests_per_s : burst / search.estimate_duration_s;
  plan.rate_at = [rate, burst](double load) { return rate * std::min(load, burst) / burst; };
  return plan;
}

namespace {

// The capacity estimate a search starts from (rate: unless --search-start is given;
// concurrency: always, for the probes' sizes), and its line; nullopt without one.
std::optional<capacity_estimate> search_estimate(sweep_run& run, double& estimate_s, bool& interrupted) {
  const auto& search = *run.s.search;
  if (search.axis == search_axis::rate && !search.start_from_estimate) return std::nullopt;
  say(run.callbacks.console,
      fmt::format("SLO search: estimating capacity: {} requests in flight, {} requests, at most {:g} s\n",
                  search.estimate_concurrency, estimate_requests(search.estimate_concurrency),
                  search.estimate_duration_s));
  auto estimate = run_capacity_estimate(run, estimate_s, interrupted);
  if (interrupted) {
    say(run.callbacks.console, "SLO search: interrupted during the capacity estimate\n");
    return estimate;
  }
  say(run.callbacks.console,
      estimate.ok ? fmt::format("capacity estimate: {:.4g} requests/s ({} completed in {:.2f} s, the longest in "
                                "{:.2f} s)\n",
                                estimate.requests_per_s, estimate.completed, estimate_s, estimate.max_e2el_s)
                  : fmt::format("capacity estimate: none ({}); the search starts at --search-start {:g}\n",
                                estimate.why, search.start));
  return estimate;
}

// Rank 0's verdict on the probe just measured (its case the last of run.out), said on the
// console as `what`; `cut`: stopped at its time limit of `limit` s.
probe_outcome judge_search_probe(sweep_run& run, const std::string& what, bool cut, double limit, bool invalid_before) {
  const auto& s = run.s;
  auto& c = run.out.cases.back();
  if (cut) {
    const auto why =
        fmt::format("cut at its time limit of {:.3g} s (the requests still in flight were cancelled)", limit);
    c.reason = why;
    c.notes["slo"] = "missed: " + why;
    run.out.invalid = invalid_before;  // a cut probe misses the objectives; the run is not invalid for it
    say(run.callbacks.console, fmt::format("{}: missed ({})\n", what, why));
    return {true, false, why};
  }
  if (c.status == core::case_status::failed) {
    // No request succeeded: the objectives (no request may fail) were missed.
    c.notes["slo"] = "missed: " + c.reason;
    run.out.invalid = invalid_before;  // the search judged it; the run is not invalid for it
    say(run.callbacks.console, fmt::format("{}: missed ({})\n", what, c.reason));
    return {true, false, c.reason};
  }
  const auto verdict = judge_slo(run.out.points.back(), s.objectives);
  if (c.status != core::case_status::valid) {
    // Failed requests break the objectives whatever else went wrong; otherwise an INVALID
    // point (the client fell behind its schedule) says nothing of the server: the search
    // goes on below this load, and the run is not invalid for it.
    const bool failures = run.out.points.back().value("failed", 0.0) > 0;
    run.out.invalid = invalid_before;
    if (failures) {
      c.notes["slo"] = "missed: " + verdict.why;
      say(run.callbacks.console,
          fmt::format("{}: missed ({}; the point is INVALID: {})\n", what, verdict.why, c.reason));
      return {true, false, verdict.why};
    }
    c.notes["slo"] = "could not judge: " + c.reason;
    say(run.callbacks.console, fmt::format("{}: could not judge ({})\n", what, c.reason));
    return {false, false, c.reason};
  }
  c.notes["slo"] = verdict.met ? "met" : "missed: " + verdict.why;
  say(run.callbacks.console, fmt::format("{}: {}\n", what, verdict.met ? "met" : "missed (" + verdict.why + ")"));
  return {true, verdict.met, verdict.why};
}

// One probe of a search at `value` (a rate or a concurrency), within its time limit, judged
// by rank 0 and followed by the other ranks.
probe_outcome run_search_probe(sweep_run& run, const search_settings& settings, const search_plan& plan, double value) {
  const auto& s = run.s;
  const bool by_rate = settings.axis == search_axis::rate;
  if (cancelled(run)) return {false, false, "interrupted", true};
  const auto count = probe_requests(settings, plan.rate_at(value));
  const double limit = probe_time_limit_s(settings, plan, value);
  const bool invalid_before = run.out.invalid;
  const auto* user = run.cancel;
  bool interrupted = false, cut = false;
  {
    // A probe still running at its time limit is cut: the load was more than the server
    // serves in time.
    probe_deadline deadline(user, limit);
    run.cancel = deadline.flag();
    interrupted =
        by_rate ? run.measure(s.concurrencies.front(), value, count) : run.measure(value, s.rates.front(), count);
    run.cancel = user;
    cut = deadline.expired() && !(user != nullptr && user->load());
  }
  if (s.ranks.any(interrupted && !cut)) return {false, false, "interrupted", true};
  cut = s.ranks.rank0_says(cut);
  probe_outcome o;
  const auto what =
      fmt::format("SLO probe {} {:g} ({} requests)", by_rate ? "request rate" : "max concurrency", value, count);
  if (s.ranks.rank == 0) o = judge_search_probe(run, what, cut, limit, invalid_before);
  // The other ranks follow rank 0's verdict.
  o.measured = s.ranks.rank0_says(o.measured);
  o.met = s.ranks.rank0_says(o.met);
  return o;
}

// The search as the run's settings record it: its estimate, plan, probes and answer.
json search_record(const sweep_run& run, const search_settings& settings, const search_plan& plan,
                   const std::optional<capacity_estimate>& estimate, double estimate_s, const search_result& result,
                   double bound_s, double elapsed_s) {
  const auto& s = run.s;
  json probes = json::array();
  for (const auto& p : result.probes) {
    const auto& o = p.outcome;
    const char* outcome = o.interrupted ? "interrupted" : !o.measured ? "could not judge" : o.met ? "met" : "missed";
    probes.push_back({{"load", p.load},
                      {"requests", probe_requests(settings, plan.rate_at(p.load))},
                      {"time_limit_s", probe_time_limit_s(settings, plan, p.load)},
                      {"met", o.met},
                      {"measured", o.measured},
                      {"outcome", outcome},
                      {"why", o.why}});
  }
  json estimated = nullptr;
  if (estimate) {
    estimated = {{"concurrency", s.search->estimate_concurrency},
                 {"ok", estimate->ok},
                 {"requests_per_s", estimate->ok ? json(estimate->requests_per_s) : json(nullptr)},
                 {"completed", estimate->completed},
                 {"max_e2el_s", estimate->max_e2el_s},
                 {"window_s", estimate->window_s},
                 {"elapsed_s", estimate_s},
                 {"why", estimate->why}};
  }
  return {{"axis", settings.axis == search_axis::rate ? "rate" : "concurrency"},
          {"slo", s.objectives.text()},
          {"capacity_estimate", estimated},
          {"plan",
           {{"start", plan.start},
            {"start_basis", plan.start_basis},
            {"max_probes", settings.max_probes},
            {"probe_duration_s", settings.probe_duration_s},
            {"min_probe_requests", settings.min_probe_requests},
            {"max_probe_requests", settings.max_probe_requests > 0 ? json(settings.max_probe_requests) : json(nullptr)},
            {"drain_s", plan.drain_s},
            {"time_bound_s", bound_s}}},
          {"probes", probes},
          {"best", result.best ? json(*result.best) : json(nullptr)},
          {"lowest_failing", result.lowest_failing ? json(*result.lowest_failing) : json(nullptr)},
          {"lowest_unjudged", result.lowest_unjudged ? json(*result.lowest_unjudged) : json(nullptr)},
          {"outcome", to_string(result.verdict)},
          {"ended", result.ended},
          {"elapsed_s", elapsed_s}};
}

// The search's last line: its answer, or why it has none.
std::string search_result_line(const sweep_run& run, const search_result& result, double bound_s, double elapsed_s) {
  const bool by_rate = run.s.search->axis == search_axis::rate;
  const auto unit = by_rate ? " requests/s" : " in flight";
  const auto axis = by_rate ? "rate" : "concurrency";
  const auto slo = run.s.objectives.text();
  switch (result.verdict) {
    case search_verdict::found:
      return fmt::format(
          "SLO search ({}): highest load meeting {}: {:.4g}{}; {} ({} probes, {:.1f} s of at most "
          "{:.0f} s)\n",
          axis, slo, *result.best, unit, result.ended, result.probes.size(), elapsed_s, bound_s);
    case search_verdict::missed:
      return fmt::format("SLO search ({}): missed: no load met {}: {} ({:.1f} s)\n", axis, slo, result.ended,
                         elapsed_s);
    case search_verdict::unjudged:
      return fmt::format(
          "SLO search ({}): could not judge: no probe met {} and the lowest load probed could not be judged: {} "
          "({:.1f} s); lower the load (--search-start) or give the client more room (--max-lateness-ms)\n",
          axis, slo, result.ended, elapsed_s);
    case search_verdict::interrupted:
      return fmt::format("SLO search ({}): {} ({:.1f} s)\n", axis, result.ended, elapsed_s);
  }
  return "";
}

}  // namespace

// --search: the highest load meeting --slo, each probe a point of its own, bounded by time.
void run_search(sweep_run& run) {
  const auto& s = run.s;
  const auto started = std::chrono::steady_clock::now();
  // The first load (rate) and the probes' sizes (concurrency) come from a short estimate.
  double estimate_s = 0;
  bool interrupted = false;
  const auto estimate = search_estimate(run, estimate_s, interrupted);
  if (interrupted) return;
  const auto plan = make_plan(*s.search, estimate, estimate_s);
  auto settings = *s.search;
  settings.start = plan.start;
  const double bound_s = plan.estimate_s + probes_time_bound_s(settings, plan);
  say(run.callbacks.console, plan_text(settings, plan));
  const auto result =
      search_limit(settings, [&](double value) { return run_search_probe(run, settings, plan, value); });
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (s.ranks.rank != 0) return;
  run.out.settings["slo_search"] = search_record(run, settings, plan, estimate, estimate_s, result, bound_s, elapsed_s);
  run.out.cases.push_back(limit_case(run, result));
  // Missed: exit code 1; could not judge: its own exit code (serve_command); interrupted: 130.
  if (result.verdict == search_verdict::missed) run.out.invalid = true;
  if (result.verdict == search_verdict::unjudged) run.out.unjudged = true;
  say(run.callbacks.console, search_result_line(run, result, bound_s, elapsed_s));
}

}  // namespace ironbench::serve
