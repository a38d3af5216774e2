#include "core/result_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "core/error.hpp"
#include "core/json_text.hpp"

namespace ironbench::core {
namespace {

json value_to_json(const axis_value& value) {
  return std::visit([](const auto& v) { return json(v); }, value);
}

json summary_to_json(const summary& s) {
  return json{{"count", s.count}, {"median", s.median}, {"p10", s.p10},       {"p90", s.p90}, {"min", s.min},
              {"max", s.max},     {"mean", s.mean},     {"stddev", s.stddev}, {"cv", s.cv}};
}

json load_to_json(const host_load& load) {
  return json{{"others_percent", load.others_percent}, {"steal_percent", load.steal_percent}};
}

json measurement_to_json(const measurement& m) {
  return json{{"unit", "s"},
              {"statistics", summary_to_json(m.time_s)},
              {"samples", m.samples_s},
              {"batch", m.batch},
              {"warmup_repetitions", m.warmup_reps},
              {"warmup_s", m.warmup_s},
              {"total_iterations", m.total_iterations},
              {"stop_reason", to_string(m.stop)}};
}

// ---- reading: small helpers that name the field in their errors

[[noreturn]] void malformed(const std::string& context, const std::string& what) {
  throw error(fmt::format("{}: not an ironbench result: {}", context, what));
}

const json& require(const json& object, const char* key, const std::string& context) {
  if (!object.is_object() || !object.contains(key)) {
    malformed(context, fmt::format("missing field '{}'", key));
  }
  return object.at(key);
}

std::string get_string(const json& object, const char* key, const std::string& context, bool required = false) {
  if (!object.contains(key)) {
    if (required) malformed(context, fmt::format("missing field '{}'", key));
    return {};
  }
  const auto& value = object.at(key);
  if (!value.is_string()) malformed(context, fmt::format("field '{}' is not a string", key));
  return value.get<std::string>();
}

double get_number(const json& object, const char* key, const std::string& context) {
  if (!object.contains(key)) return 0.0;
  const auto& value = object.at(key);
  if (!value.is_number()) malformed(context, fmt::format("field '{}' is not a number", key));
  return value.get<double>();
}

std::size_t get_count(const json& object, const char* key, const std::string& context) {
  const double value = get_number(object, key, context);
  if (value < 0) malformed(context, fmt::format("field '{}' is negative", key));
  return static_cast<std::size_t>(value);
}

axis_value value_from_json(const json& value, const std::string& context) {
  if (value.is_number_integer()) return value.get<std::int64_t>();
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) return value.get<std::string>();
  malformed(context, "a parameter value is neither a number nor a string");
}

host_load load_from_json(const json& j, const std::string& context) {
  if (!j.is_object()) malformed(context, "field 'host_load' is not an object");
  return host_load{get_number(j, "others_percent", context), get_number(j, "steal_percent", context)};
}

summary summary_from_json(const json& j, const std::string& context) {
  summary s;
  s.count = get_count(j, "count", context);
  s.median = get_number(j, "median", context);
  s.p10 = get_number(j, "p10", context);
  s.p90 = get_number(j, "p90", context);
  s.min = get_number(j, "min", context);
  s.max = get_number(j, "max", context);
  s.mean = get_number(j, "mean", context);
  s.stddev = get_number(j, "stddev", context);
  s.cv = get_number(j, "cv", context);
  return s;
}

measurement measurement_from_json(const json& j, const std::string& context) {
  measurement m;
  if (j.contains("samples")) {
    if (!j.at("samples").is_array()) malformed(context, "'samples' is not an array");
    for (const auto& s : j.at("samples")) {
      if (!s.is_number()) malformed(context, "a sample is not a number");
      m.samples_s.push_back(s.get<double>());
    }
  }
  if (j.contains("statistics")) m.time_s = summary_from_json(j.at("statistics"), context);
  m.batch = get_count(j, "batch", context);
  m.warmup_reps = get_count(j, "warmup_repetitions", context);
  m.warmup_s = get_number(j, "warmup_s", context);
  m.total_iterations = get_count(j, "total_iterations", context);
  const auto stop = get_string(j, "stop_reason", context);
  for (auto r : {stop_reason::target_noise, stop_reason::max_time, stop_reason::max_reps, stop_reason::cancelled}) {
    if (stop == to_string(r)) m.stop = r;
  }
  return m;
}

case_result case_from_json(const json& j, const std::string& context) {
  if (!j.is_object()) malformed(context, "a case is not an object");
  case_result c;
  c.benchmark = get_string(j, "benchmark", context, true);
  c.device = get_string(j, "device", context);
  if (j.contains("params")) {
    const auto& params = j.at("params");
    if (!params.is_object()) malformed(context, "'params' is not an object");
    for (const auto& [name, value] : params.items()) c.params.set(name, value_from_json(value, context));
  }
  if (j.contains("param_units") && j.at("param_units").is_object()) {
    for (const auto& [name, unit] : j.at("param_units").items()) {
      if (unit.is_string()) c.param_units[name] = unit.get<std::string>();
    }
  }
  const auto status = get_string(j, "status", context, true);
  const auto parsed = case_status_from_string(status);
  if (!parsed) malformed(context, fmt::format("unknown case status '{}'", status));
  c.status = *parsed;
  c.reason = get_string(j, "reason", context);
  if (j.contains("work")) {
    const auto& w = j.at("work");
    c.work.flops = get_number(w, "flops", context);
    c.work.bytes_read = get_number(w, "bytes_read", context);
    c.work.bytes_written = get_number(w, "bytes_written", context);
  }
  if (j.contains("time")) c.timing = measurement_from_json(j.at("time"), context);
  if (j.contains("metrics")) {
    for (const auto& m : j.at("metrics")) {
      c.metrics.push_back(metric{get_string(m, "name", context, true), get_number(m, "value", context),
                                 get_string(m, "unit", context), get_string(m, "description", context)});
    }
  }
  if (j.contains("telemetry") && j.at("telemetry").is_object()) c.telemetry = j.at("telemetry");
  if (j.contains("host_load")) c.load = load_from_json(j.at("host_load"), context);
  if (j.contains("unstable")) {
    const auto& u = j.at("unstable");
    instability unstable;
    unstable.cv = get_number(u, "cv", context);
    unstable.robust_cv = get_number(u, "robust_cv", context);
    unstable.max_cv = get_number(u, "max_cv", context);
    unstable.samples = get_count(u, "samples", context);
    if (u.contains("host_load")) unstable.load = load_from_json(u.at("host_load"), context);
    c.unstable = unstable;
  }
  if (j.contains("series") && j.at("series").is_object()) {
    for (const auto& [name, values] : j.at("series").items()) {
      if (!values.is_array()) malformed(context, fmt::format("series '{}' is not an array", name));
      auto& out = c.series[name];
      for (const auto& v : values) out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
    }
  }
  if (j.contains("notes") && j.at("notes").is_object()) {
    for (const auto& [key, value] : j.at("notes").items()) {
      c.notes[key] = value.is_string() ? value.get<std::string>() : core::json_text(value);
    }
  }
  if (j.contains("schedule") && j.at("schedule").is_object()) {
    const auto& s = j.at("schedule");
    case_schedule schedule;
    schedule.start_s = get_number(s, "start_s", context);
    schedule.wall_s = get_number(s, "wall_s", context);
    schedule.stage = get_string(s, "stage", context);
    if (s.contains("concurrent_with") && s.at("concurrent_with").is_array()) {
      for (const auto& d : s.at("concurrent_with")) {
        if (d.is_string()) schedule.concurrent_with.push_back(d.get<std::string>());
      }
    }
    c.schedule = std::move(schedule);
  }
  return c;
}

device_info device_from_json(const json& j, const std::string& context) {
  device_info d;
  d.id = get_string(j, "id", context, true);
  d.name = get_string(j, "name", context);
  if (j.contains("kind")) {  // absent: the default, cpu
    const auto kind = get_string(j, "kind", context);
    const auto parsed = parse_device_kind(kind);
    if (!parsed) malformed(context, fmt::format("unknown device kind '{}' (known: {})", kind, device_kind_names()));
    d.kind = *parsed;
  }
  d.index = static_cast<int>(get_number(j, "index", context));
  d.memory_bytes = static_cast<std::uint64_t>(get_number(j, "memory_bytes", context));
  if (j.contains("properties")) d.properties = j.at("properties");
  return d;
}

}  // namespace

json to_json(const measurement_settings& s) {
  return json{{"warmup_s", s.warmup_s},   {"min_warmup_reps", s.min_warmup_reps}, {"min_reps", s.min_reps},
              {"max_reps", s.max_reps},   {"min_time_s", s.min_time_s},           {"max_time_s", s.max_time_s},
              {"target_cv", s.target_cv}, {"min_sample_s", s.min_sample_s},       {"unstable_cv", s.unstable_cv}};
}

json to_json(const parameter_set& params) {
  json j = json::object();
  for (const auto& [name, value] : params.entries()) j[name] = value_to_json(value);
  return j;
}

json to_json(const case_result& c) {
  const json params = to_json(c.params);
  json metrics = json::array();
  for (const auto& m : c.metrics) {
    json entry{{"name", m.name}, {"value", m.value}, {"unit", m.unit}};
    if (!m.description.empty()) entry["description"] = m.description;
    metrics.push_back(std::move(entry));
  }
  json j{{"benchmark", c.benchmark}, {"device", c.device}, {"params", params}};
  if (!c.param_units.empty()) j["param_units"] = json(c.param_units);
  j["status"] = to_string(c.status);
  if (!c.reason.empty()) j["reason"] = c.reason;
  j["work"] = {{"flops", c.work.flops}, {"bytes_read", c.work.bytes_read}, {"bytes_written", c.work.bytes_written}};
  if (c.timing) j["time"] = measurement_to_json(*c.timing);
  j["metrics"] = std::move(metrics);
  j["notes"] = json(c.notes);
  if (!c.telemetry.is_null()) j["telemetry"] = c.telemetry;
  if (c.load) j["host_load"] = load_to_json(*c.load);
  if (c.unstable) {
    j["unstable"] = {{"cv", c.unstable->cv},
                     {"robust_cv", c.unstable->robust_cv},
                     {"max_cv", c.unstable->max_cv},
                     {"samples", c.unstable->samples},
                     {"reason", c.unstable->describe()}};
    if (c.unstable->load) j["unstable"]["host_load"] = load_to_json(*c.unstable->load);
  }
  if (!c.series.empty()) {
    json series = json::object();
    for (const auto& [name, values] : c.series) {
      json array = json::array();
      for (const double v : values) array.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      series[name] = std::move(array);
    }
    j["series"] = std::move(series);
  }
  if (c.schedule) {
    j["schedule"] = {{"start_s", c.schedule->start_s},
                     {"wall_s", c.schedule->wall_s},
                     {"stage", c.schedule->stage},
                     {"concurrent_with", c.schedule->concurrent_with}};
  }
  return j;
}

json to_json(const run_result& run) {
  json devices = json::array();
  for (const auto& d : run.devices) devices.push_back(to_json(d));
  json cases = json::array();
  for (const auto& c : run.cases) cases.push_back(to_json(c));
  json document = {{"schema_version", run.schema_version}};
  if (!run.uuid.empty()) document["uuid"] = run.uuid;  // absent in runs written before uuids
  document.update(json{{"tool", run.tool},
                       {"argv", run.argv},
                       {"tags", run.tags},
                       {"start_time", run.start_time},
                       {"end_time", run.end_time},
                       {"status", to_string(run.status)},
                       {"status_reason", run.status_reason},
                       {"host", run.host},
                       {"devices", std::move(devices)},
                       {"settings", run.settings},
                       {"cases", std::move(cases)},
                       {"telemetry", run.telemetry},
                       {"findings", run.findings}});
  return document;
}

run_result run_from_json(const json& document, const std::string& context) {
  if (!document.is_object()) malformed(context, "the document is not a JSON object");
  const auto& version = require(document, "schema_version", context);
  if (!version.is_number_integer() || version.get<int>() < 1) {
    malformed(context, "'schema_version' is not a positive integer");
  }
  run_result run;
  run.schema_version = version.get<int>();
  if (document.contains("uuid") && document.at("uuid").is_string()) run.uuid = document.at("uuid").get<std::string>();
  const auto& cases = require(document, "cases", context);
  if (!cases.is_array()) malformed(context, "'cases' is not an array");
  if (document.contains("tool")) run.tool = document.at("tool");
  if (document.contains("argv") && document.at("argv").is_array()) {
    for (const auto& a : document.at("argv")) {
      if (a.is_string()) run.argv.push_back(a.get<std::string>());
    }
  }
  if (document.contains("tags") && document.at("tags").is_object()) {
    for (const auto& [key, value] : document.at("tags").items()) {
      if (value.is_string()) run.tags[key] = value.get<std::string>();
    }
  }
  run.start_time = get_string(document, "start_time", context);
  run.end_time = get_string(document, "end_time", context);
  const auto status = get_string(document, "status", context);
  for (auto s : {run_status::valid, run_status::invalid, run_status::interrupted}) {
    if (status == to_string(s)) run.status = s;
  }
  run.status_reason = get_string(document, "status_reason", context);
  if (document.contains("host")) run.host = document.at("host");
  if (document.contains("settings")) run.settings = document.at("settings");
  if (document.contains("devices") && document.at("devices").is_array()) {
    for (const auto& d : document.at("devices")) run.devices.push_back(device_from_json(d, context));
  }
  for (const auto& c : cases) run.cases.push_back(case_from_json(c, context));
  if (document.contains("telemetry") && document.at("telemetry").is_array()) run.telemetry = document.at("telemetry");
  if (document.contains("findings") && document.at("findings").is_array()) run.findings = document.at("findings");
  return run;
}

run_result read_run_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw usage_error(fmt::format("cannot read {}: no such file or not readable", path.string()));
  json document;
  try {
    document = json::parse(in);
  } catch (const json::parse_error& e) {
    throw usage_error(fmt::format("{}: not valid JSON (byte {})", path.string(), e.byte));
  }
  try {
    return run_from_json(document, path.string());
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(e.what());
  }
}

}  // namespace ironbench::core
