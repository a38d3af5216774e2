#include "results/nccl_tests_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/json_text.hpp"
#include "core/statistics.hpp"
#include "core/text_match.hpp"
#include "results/import_consistency.hpp"
#include "results/import_text.hpp"
#include "results/nccl_tests_import_parsers.hpp"
#include "schema/collective_case.hpp"
#include "schema/collective_names.hpp"
#include "schema/straggler_analysis.hpp"

namespace ironbench::results {
namespace {

// nccl-tests' programs and the collective each measures, longest names first so that a
// search in a file name prefers "all_reduce" to "reduce" and "reduce_scatter" to "scatter".
const std::vector<std::string>& known_collectives() {
  static const std::vector<std::string> names = {"reduce_scatter", "all_reduce", "all_gather", "alltoallv",
                                                 "alltoall",       "broadcast",  "hypercube",  "sendrecv",
                                                 "scatter",        "gather",     "reduce"};
  return names;
}

bool is_known_collective(const std::string& name) {
  const auto& names = known_collectives();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool reduces(const std::string& collective) {
  const auto c = schema::collective_from_string(collective);
  return c && schema::reduces(*c);
}

bool takes_root(const std::string& collective) {
  return collective == "broadcast" || collective == "reduce" || collective == "gather" || collective == "scatter";
}

bool is_reduce_op(const std::string& redop) {
  return schema::reduce_op_from_string(redop).has_value() || redop == "mulsum";
}

// "all_reduce_perf", "./build/all_reduce_perf_mpi" -> "all_reduce"; "" when not a program of
// nccl-tests.
std::string collective_of_program(const std::string& program) {
  std::string name = file_name_of(trim_copy(program));
  for (const std::string suffix : {".exe", "_mpi"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  }
  if (name.ends_with("_perf")) name.resize(name.size() - 5);
  return is_known_collective(name) ? name : std::string();
}

// The first "COLLECTIVE_perf" in the file name ("run3-all_reduce_perf.txt" -> "all_reduce").
std::string collective_of_file_name(const std::string& source) {
  const auto name = file_name_of(source);
  for (std::size_t at = 0; at < name.size(); ++at) {
    for (const auto& collective : known_collectives()) {
      if (std::string_view(name).substr(at).starts_with(collective + "_perf")) return collective;
    }
  }
  return {};
}

int ranks_of(const nccl_tests_report& report, const std::string& source, const nccl_tests_options& options) {
  int ranks = 0;
  for (const auto& d : report.devices) ranks = std::max(ranks, d.rank + 1);
  if (report.processes > 0) {
    // nccl-tests' JSON lists one device per process: a process drives ngpus GPUs per thread.
    auto setting = [&](const char* key) {
      const auto it = report.settings.find(key);
      const auto value = it == report.settings.end() ? std::nullopt : parse_integer(it->second);
      return value && *value > 0 && *value < (1 << 16) ? static_cast<int>(*value) : 1;
    };
    const auto threads = std::int64_t{report.processes} * setting("ngpus") * setting("nthreads");
    if (threads >= max_nccl_tests_ranks) {
      throw usage_error(fmt::format("{}: {} processes of {} GPUs on each of {} threads are more than {} ranks", source,
                                    report.processes, setting("ngpus"), setting("nthreads"), max_nccl_tests_ranks - 1));
    }
    ranks = std::max(ranks, static_cast<int>(threads));
  }
  if (ranks > 0 && options.ranks > 0 && options.ranks != ranks) {
    throw usage_error(fmt::format("{}: --ranks {} but the output lists {} ranks", source, options.ranks, ranks));
  }
  return ranks > 0 ? ranks : options.ranks;
}

std::string device_summary(const std::vector<nccl_tests_device>& devices) {
  std::map<std::string, int> names;
  std::set<std::string> hosts;
  for (const auto& d : devices) {
    ++names[d.name];
    hosts.insert(d.hostname);
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : names) parts.push_back(fmt::format("{} x {}", n, name));
  return fmt::format("{} on {} host(s)", fmt::join(parts, ", "), hosts.size());
}

// busbw against algbw x the collective's bus factor (any of those its versions use), or, with
// the ranks unknown, against the most that factor reaches.
void check_bus_bandwidth(consistency_check& check, const std::string& collective, int ranks, double algbw,
                         double busbw) {
  if (ranks <= 0) {
    const double most = nccl_tests_max_bus_factor(collective);
    check.at_most("busbw", busbw, algbw * most,
                  fmt::format("algbw {:g} GB/s x {:g} (the largest bus factor of {}, at any rank count)", algbw, most,
                              collective),
                  "GB/s", nccl_tests_busbw_agreement);
    return;
  }
  const auto factors = nccl_tests_bus_factors(collective, ranks);
  if (factors.empty()) return;
  for (const double f : factors) {
    consistency_check one;
    one.agree("busbw", busbw, algbw * f, "", "GB/s", nccl_tests_busbw_agreement);
    if (one.consistent()) return;
  }
  const double f = factors.front();
  check.agree("busbw", busbw, algbw * f,
              fmt::format("algbw {:g} GB/s x {:.6g} ({}'s bus factor for {} ranks{})", algbw, f, collective, ranks,
                          factors.size() > 1 ? fmt::format(", or {:.6g}", factors.back()) : std::string()),
              "GB/s", nccl_tests_busbw_agreement);
}

}  // namespace

std::vector<double> nccl_tests_bus_factors(const std::string& collective, int ranks) {
  if (ranks <= 0) return {};
  const double n = ranks;
  if (collective == "all_reduce") return {2 * (n - 1) / n};
  if (collective == "all_gather" || collective == "reduce_scatter" || collective == "alltoall") return {(n - 1) / n};
  if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv") return {1.0};
  if (collective == "gather" || collective == "scatter" || collective == "alltoallv" || collective == "hypercube") {
    return {(n - 1) / n, 1.0};
  }
  return {};
}

double nccl_tests_max_bus_factor(const std::string& collective) { return collective == "all_reduce" ? 2.0 : 1.0; }

std::vector<nccl_tests_report> parse_nccl_tests(const std::string& text, const std::string& source) {
  const auto content = trim_copy(text);
  if (content.empty()) throw usage_error(fmt::format("{}: empty file, no nccl-tests output", source));
  if (content.front() == '{') return {parse_nccl_tests_json(content, source)};
  auto reports = parse_nccl_tests_text(text, source);
  if (reports.empty()) {
    throw usage_error(
        fmt::format("{}: no nccl-tests table (a '#  size  count  type ... time  algbw  busbw' header "
                    "followed by rows)",
                    source));
  }
  return reports;
}

std::string ironbench_dtype(const std::string& type) { return schema::dtype_of_nccl_tests_type(type); }

std::string nccl_tests_collective(const nccl_tests_report& report, const std::string& source,
                                  const nccl_tests_options& options) {
  std::string collective;
  std::string from;
  if (!report.program.empty()) {
    collective = collective_of_program(report.program);
    if (collective.empty()) {
      throw usage_error(fmt::format("{}: '{}' is not an nccl-tests collective test", source, report.program));
    }
    from = fmt::format("the output (program {})", report.program);
    if (!options.collective.empty() && collective_of_program(options.collective) != collective) {
      throw usage_error(
          fmt::format("{}: the output is {} but --collective says {}", source, report.program, options.collective));
    }
  } else if (!options.collective.empty()) {
    collective = collective_of_program(options.collective);
    if (collective.empty()) {
      throw usage_error(fmt::format("unknown --collective '{}' (known: {})", options.collective,
                                    fmt::join(known_collectives(), ", ")));
    }
    from = "--collective";
  } else if (const auto named = collective_of_file_name(source); !named.empty()) {
    collective = named;
    from = "the file name";
  }
  // The root and redop columns tell rooted collectives apart and check the rest.
  bool rooted = false, unrooted = false, with_op = false, without_op = false;
  for (const auto& r : report.rows) {
    if (r.root) (*r.root >= 0 ? rooted : unrooted) = true;
    if (is_reduce_op(r.redop)) with_op = true;
    if (r.redop == "none") without_op = true;
  }
  // A root and an operator is reduce; a root alone is broadcast, gather or scatter.
  if (collective.empty() && rooted && !unrooted && with_op) collective = "reduce";
  if (collective.empty()) {
    throw usage_error(
        fmt::format("{}: the output does not say which collective it measured; name the file after the "
                    "test (all_reduce_perf.txt) or pass --collective NAME",
                    source));
  }
  const bool root_fits = takes_root(collective) ? !unrooted : !rooted;
  const bool op_fits = reduces(collective) ? !without_op : (collective == "sendrecv" || !with_op);
  if (!root_fits || !op_fits) {
    throw usage_error(fmt::format("{}: the root/redop columns do not fit {} (from {}); pass --collective NAME", source,
                                  collective, from.empty() ? "the columns" : from));
  }
  return collective;
}

std::vector<core::case_result> nccl_tests_cases(const nccl_tests_report& report, const std::string& source,
                                                const nccl_tests_options& options) {
  const auto collective = nccl_tests_collective(report, source, options);
  const int ranks = ranks_of(report, source, options);
  const bool checked = !report.settings.count("validation") || report.settings.at("validation") != "0";
  std::vector<core::case_result> cases;
  for (const auto& row : report.rows) {
    for (const bool in_place : {false, true}) {
      const auto& p = in_place ? row.in_place : row.out_of_place;
      if (!p.present) continue;
      schema::collective_case_fields f;
      f.collective = collective;
      f.dtype = ironbench_dtype(row.type);
      f.op = reduces(collective) ? (row.redop.empty() ? std::string("unknown") : row.redop) : std::string("none");
      f.root = row.root.value_or(-1);
      f.size = row.bytes;
      f.in_place = in_place;
      f.ranks = ranks;
      f.count = row.count;
      if (!p.iteration_times_us.empty()) {
        core::measurement m;
        for (double t : p.iteration_times_us) m.samples_s.push_back(t * 1e-6);
        m.total_iterations = m.samples_s.size();
        m.time_s = core::summarize(m.samples_s);
        f.timing = m;
      }
      f.time_us = p.time_us;
      f.time_description =
          report.cpu_time ? "CPU time per iteration (nccl-tests -C)" : "time per iteration (nccl-tests)";
      f.algbw_gbs = p.algbw_gbs;
      f.busbw_gbs = p.busbw_gbs;
      const bool counted = p.wrong.has_value() && !report.wrong_is_max_error;
      f.wrong = counted ? *p.wrong : -1;
      auto c = schema::collective_case(f);
      if (f.timing) c.notes["timing"] = "every iteration's time from nccl-tests' JSON (-I 1)";
      if (report.wrong_is_max_error && p.wrong) {
        c.metrics.push_back(
            {"max_error", *p.wrong, "", "largest deviation from the expected values (nccl-tests < 2.13)"});
      }
      // algbw is size / time (GB = 1e9 B); the table prints both to 2 decimals, its time to 1 or 2.
      consistency_check check;
      if (p.time_us > 0) {
        check.agree("algbw", p.algbw_gbs, static_cast<double>(row.bytes) / p.time_us / 1e3,
                    fmt::format("{} B / {:g} us", row.bytes, p.time_us), "GB/s", nccl_tests_bandwidth_agreement);
      }
      check_bus_bandwidth(check, collective, ranks, p.algbw_gbs, p.busbw_gbs);
      check.apply_to(c);
      c.notes["source"] = source;
      c.notes["imported_from"] = fmt::format("nccl-tests {} output{}", report.format,
                                             report.program.empty() ? "" : " of " + file_name_of(report.program));
      c.notes["nccl_tests_type"] = row.type;
      if (!report.version_line.empty()) c.notes["version"] = report.version_line;
      c.notes["stragglers"] =
          p.process_times_us.size() >= 2
              ? fmt::format("per-process times of {} processes: settings.stragglers", p.process_times_us.size())
              : std::string(nccl_tests_no_process_times);
      if (!report.devices.empty()) c.notes["devices"] = device_summary(report.devices);
      if (ranks == 0) c.notes["ranks"] = "unknown: the output lists no ranks (pass --ranks N)";
      if (report.average_busbw_gbs) c.notes["avg_bus_bandwidth"] = fmt::format("{:g} GB/s", *report.average_busbw_gbs);
      if (report.wrong_is_max_error) {
        c.notes["verification"] = "nccl-tests before 2.13: the largest deviation (max_error), not a count";
      } else if (counted) {
        c.notes["verification"] = "nccl-tests' check of the output (#wrong)";
      } else {
        c.notes["verification"] = checked ? "not reported (N/A)" : "not checked (nccl-tests -c 0)";
      }
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::optional<json> nccl_tests_stragglers(const nccl_tests_report& report) {
  std::vector<schema::timed_step> steps;
  std::size_t processes = 0;
  for (const auto& row : report.rows) {
    for (const bool in_place : {false, true}) {
      const auto& p = in_place ? row.in_place : row.out_of_place;
      if (p.process_times_us.size() < 2) continue;
      processes = std::max(processes, p.process_times_us.size());
      const auto iterations = p.process_times_us.front().size();
      for (std::size_t i = p.skipped_iterations; i < iterations; ++i) {
        schema::timed_step step;
        step.label = fmt::format("{} B {} iteration {}", row.bytes, in_place ? "in place" : "out of place", i + 1);
        for (const auto& times : p.process_times_us) step.rank_seconds.push_back(times[i] * 1e-6);
        steps.push_back(std::move(step));
      }
    }
  }
  if (steps.empty()) return std::nullopt;
  // config.devices lists one entry per process, in process order.
  std::vector<std::string> hosts;
  if (report.devices.size() == processes) {
    for (const auto& d : report.devices) hosts.push_back(d.hostname);
  }
  return schema::straggler_json(schema::find_stragglers(steps, hosts), nccl_tests_straggler_method);
}

}  // namespace ironbench::results
