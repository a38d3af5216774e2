#include "results/results_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "core/text_match.hpp"
#include "results/import_text.hpp"
#include "results/postgres_store.hpp"
#include "results/run_uuid.hpp"
#include "results/sqlite_store.hpp"
#include "results/store_backend.hpp"

namespace ironbench::results {
namespace {

std::string host_name(const core::run_result& run) {
  if (run.host.is_object() && run.host.contains("hostname") && run.host.at("hostname").is_string()) {
    return run.host.at("hostname").get<std::string>();
  }
  return "unknown";
}

void check_date(const std::string& text, const char* flag) {
  if (text.empty()) return;
  const auto refuse = [&] {
    throw usage_error(fmt::format("{} '{}' is not a date: use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ", flag,
                                  text.size() > 40 ? text.substr(0, 40) + "..." : text));
  };
  // YYYY-MM-DD, with THH, THH:MM or THH:MM:SS after it, and Z after that.
  const std::string_view shape = "9999-99-99T99:99:99";
  const auto shaped = text.ends_with('Z') && text.size() > 13 ? text.size() - 1 : text.size();
  if ((shaped != 10 && shaped != 13 && shaped != 16 && shaped != 19) ||
      !has_shape(std::string_view(text).substr(0, shaped), shape.substr(0, shaped))) {
    refuse();
  }
  // The calendar too: 2026-13-45 has the shape of a date and is none.
  const auto number = [&](std::size_t at, std::size_t length) { return std::stoi(text.substr(at, length)); };
  const std::chrono::year_month_day day{std::chrono::year{number(0, 4)},
                                        std::chrono::month{static_cast<unsigned>(number(5, 2))},
                                        std::chrono::day{static_cast<unsigned>(number(8, 2))}};
  if (!day.ok()) refuse();
  if (text.size() >= 13 && number(11, 2) > 23) refuse();
  if (text.size() >= 16 && number(14, 2) > 59) refuse();
  if (text.size() >= 19 && number(17, 2) > 60) refuse();
}

/// `run` as the rows a back end stores; `telemetry`, when given, is the run's telemetry moved
/// out of it (run.telemetry left empty), moved into the document in its place.
run_row row_of(const core::run_result& run, const std::string& json_path, json* telemetry = nullptr) {
  run_row row;
  row.uuid = run.uuid;
  row.start_time = run.start_time;
  row.end_time = run.end_time;
  row.host = host_name(run);
  row.command = run.argv.size() > 1 ? run.argv[1] : std::string("unknown");
  row.status = std::string(core::to_string(run.status));
  row.json_path = json_path;
  if (telemetry != nullptr) {
    auto document = core::to_json(run);
    document["telemetry"] = std::move(*telemetry);  // in its place: the key is already there
    row.document = core::json_text(document);
  } else {
    row.document = core::json_text(core::to_json(run));
  }
  row.tags = run.tags;
  for (const auto& c : run.cases) {
    json metrics = json::object();
    for (const auto& m : c.metrics) metrics[m.name] = m.value;
    row.cases.push_back({c.benchmark, c.device, core::json_text(core::to_json(c.params)),
                         std::string(core::to_string(c.status)), core::json_text(metrics)});
  }
  return row;
}

const store_backend_entry& backend_of(const store_location& location) {
  for (const auto& entry : store_backends()) {
    if (entry.kind == location.kind()) return entry;
  }
  throw error("no results store back end for this location");
}

}  // namespace

const std::vector<store_backend_entry>& store_backends() {
  static const std::vector<store_backend_entry> table = {
      {store_kind::sqlite, "sqlite", open_sqlite_store},
      {store_kind::postgresql, "postgresql", open_postgres_store},
  };
  return table;
}

filter_sql sql_of(const run_filter& filter) {
  filter_sql out;
  out.where_and_order = "WHERE 1 = 1";
  if (!filter.benchmark.empty()) {
    out.where_and_order += " AND id IN (SELECT run_id FROM cases WHERE benchmark = ?)";
    out.values.push_back(filter.benchmark);
  }
  for (const auto& [key, value] : filter.tags) {
    out.where_and_order += " AND id IN (SELECT run_id FROM run_tags WHERE key = ? AND value = ?)";
    out.values.push_back(key);
    out.values.push_back(value);
  }
  if (!filter.host.empty()) {
    out.where_and_order += " AND host = ?";
    out.values.push_back(filter.host);
  }
  if (!filter.since.empty()) {
    out.where_and_order += " AND start_time >= ?";
    out.values.push_back(filter.since);
  }
  if (!filter.until.empty()) {
    out.where_and_order += " AND start_time < ?";
    // A bare date includes the whole day: '~' sorts after the 'T' of every time that day.
    out.values.push_back(filter.until.size() == 10 ? filter.until + "~" : filter.until);
  }
  out.where_and_order += " ORDER BY start_time DESC, id DESC";
  if (filter.limit > 0) out.where_and_order += fmt::format(" LIMIT {}", filter.limit);
  return out;
}

results_store::results_store(const store_location& location, store_access access)
    : location_(location), backend_(backend_of(location).open(location, access == store_access::write)) {}

results_store::~results_store() = default;

const store_location& results_store::path() const { return location_; }

bool results_store::holds_database() const { return backend_->holds_database(); }

int results_store::schema_version() const { return backend_->schema_version(); }

store_backend& results_store::writable() {
  backend_->prepare_for_writing();
  return *backend_;
}

std::int64_t results_store::save(const core::run_result& run, const std::string& json_path) {
  auto row = row_of(run, json_path);
  if (run.uuid.empty()) {
    auto identified = run;
    identified.uuid = new_run_uuid();
    row = row_of(identified, json_path);
  }
  const auto outcome = writable().insert(row);
  if (!outcome.added) {
    throw usage_error(
        fmt::format("run {} is already stored in {} as run {}", row.uuid, location_.display(), outcome.id));
  }
  return outcome.id;
}

added_run results_store::add(const core::run_result& run, const std::string& json_path) {
  if (run.uuid.empty()) throw error("results_store::add needs a run with a uuid");
  const auto outcome = writable().insert(row_of(run, json_path));
  return {outcome.id, outcome.added};
}

added_run results_store::add(core::run_result&& run, const std::string& json_path) {
  if (run.uuid.empty()) throw error("results_store::add needs a run with a uuid");
  json telemetry = std::move(run.telemetry);
  run.telemetry = json::array();
  auto row = row_of(run, json_path, &telemetry);
  telemetry = json();
  run = core::run_result();  // its memory back before the row is written
  const auto outcome = writable().insert(row);
  return {outcome.id, outcome.added};
}

std::optional<std::int64_t> results_store::find(const std::string& uuid) const {
  if (!backend_->holds_database()) return std::nullopt;
  if (schema_version() < 2) {  // an older database read as it is: the uuids are derived
    for (const auto& r : list({})) {
      if (r.uuid == uuid) return r.id;
    }
    return std::nullopt;
  }
  return backend_->find(uuid);
}

std::vector<stored_run> results_store::list(const run_filter& filter) const {
  check_date(filter.since, "--since");
  check_date(filter.until, "--until");
  auto runs = backend_->list(filter);
  for (auto& r : runs) {
    if (r.uuid.empty()) r.uuid = stored_uuid(r.id);
  }
  return runs;
}

std::string results_store::document(std::int64_t id) const {
  if (!backend_->holds_database()) {
    throw usage_error(fmt::format("no run {} in {}: no run has been saved there", id, location_.display()));
  }
  auto text = backend_->document(id);
  if (!text) throw usage_error(fmt::format("no run {} in {}", id, location_.display()));
  return std::move(*text);
}

core::run_result results_store::load(std::int64_t id) const {
  json parsed;
  try {
    parsed = json::parse(document(id));
  } catch (const json::parse_error&) {
    throw usage_error(fmt::format("run {} in {} is damaged: its JSON does not parse", id, location_.display()));
  }
  auto run = core::run_from_json(parsed, fmt::format("run {}", id));
  if (run.uuid.empty()) run.uuid = stored_uuid(id);
  return run;
}

std::string results_store::stored_uuid(std::int64_t id) const {
  if (auto uuid = backend_->uuid(id)) return std::move(*uuid);
  // An older database read as it is: the uuid its migration will give the row.
  const auto text = document(id);
  try {
    return run_uuid_of(json::parse(text), "");
  } catch (const std::exception&) {
    return derived_run_uuid(json(text));
  }
}

bool results_store::remove(std::int64_t id) {
  if (!backend_->holds_database()) return false;
  return writable().remove(id);
}

store_location default_database_path() {
  if (const char* db = std::getenv("IRONBENCH_DB"); db != nullptr && *db != '\0') return std::string_view(db);
  if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data != '\0') {
    return std::filesystem::path(data) / "ironbench" / "results.db";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".local" / "share" / "ironbench" / "results.db";
  }
  return std::filesystem::path("ironbench-results") / "results.db";
}

store_location database_path(const std::string& given) {
  return given.empty() ? default_database_path() : store_location(std::string_view(given));
}

bool is_valid_tag(std::string_view key, std::string_view value) {
  const auto is_key_character = [](char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '.' || c == '-'; };
  return !key.empty() && std::all_of(key.begin(), key.end(), is_key_character) && !value.empty() &&
         value.find_first_of("\r\n") == std::string_view::npos;
}

std::pair<std::string, std::string> parse_tag(const std::string& text, const std::string& what) {
  const auto equals = text.find('=');
  if (equals == std::string::npos ||
      !is_valid_tag(std::string_view(text).substr(0, equals), std::string_view(text).substr(equals + 1))) {
    throw usage_error(fmt::format("{} '{}' is not KEY=VALUE (KEY: letters, digits, '_', '-', '.'; VALUE: one line)",
                                  what, excerpt(text)));
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::map<std::string, std::string> parse_tags(const std::vector<std::string>& texts, const std::string& what) {
  std::map<std::string, std::string> tags;
  for (const auto& text : texts) {
    auto [key, value] = parse_tag(text, what);
    if (const auto [at, added] = tags.emplace(key, value); !added && at->second != value) {
      throw usage_error(fmt::format("{} {} is given twice ({}={}, {}={}): a run carries one value per key", what, key,
                                    key, excerpt(at->second), key, excerpt(value)));
    }
  }
  return tags;
}

}  // namespace ironbench::results
