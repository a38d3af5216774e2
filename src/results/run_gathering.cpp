#include "results/run_gathering.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "results/run_uuid.hpp"

namespace ironbench::results {
namespace {

namespace fs = std::filesystem;

/// A run file, however many samples and kept texts it holds.
constexpr core::file_kind run_file{"run file", 2048 * core::mebibyte};

bool is_sqlite_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header &&
         std::string_view(header, sizeof header) == std::string_view("SQLite format 3\0", 16);
}

/// Whether `document` has the shape of an ironbench run document.
bool looks_like_run(const json& document) {
  if (!document.is_object() || !document.contains("schema_version") || !document.contains("cases")) return false;
  if (!document.at("cases").is_array()) return false;
  if (document.contains("tool")) {
    const auto& tool = document.at("tool");
    if (!tool.is_object() || !tool.contains("name") || tool.at("name") != "ironbench") return false;
  }
  return true;
}

/// The run in `document` read from `source`; throws usage_error when it is none or newer.
core::run_result run_of(const json& document, const std::string& source) {
  const auto& version = document.at("schema_version");
  if (!version.is_number_integer() || version.get<int>() < 1) {
    throw usage_error(fmt::format("{}: 'schema_version' is not a positive integer", source));
  }
  if (version.get<int>() > core::result_schema_version) {
    throw usage_error(fmt::format("{} has result schema version {}, newer than this build's {}: use a newer ironbench",
                                  source, version.get<int>(), core::result_schema_version));
  }
  core::run_result run;
  try {
    run = core::run_from_json(document, source);
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(e.what());
  }
  run.uuid = run_uuid_of(document, source);
  return run;
}

/// Reads the JSON file at `path`. nullopt: it is JSON but not an ironbench run (only asked
/// for by folders: `strict` refuses it instead).
std::optional<gathered_run> read_run_file(const fs::path& path, bool strict) {
  const auto text = core::read_bounded_file(path.string(), run_file);
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    throw usage_error(fmt::format("{}: not an ironbench run: not valid JSON (byte {})", path.string(), e.byte));
  }
  if (!looks_like_run(document)) {
    if (!strict) return std::nullopt;
    throw usage_error(
        fmt::format("{}: not an ironbench run (no schema_version and cases of ironbench's result format; "
                    "another tool's output is read by `ironbench import FORMAT FILE`)",
                    path.string()));
  }
  return gathered_run{run_of(document, path.string()), path.string(), fs::absolute(path).string()};
}

void read_database(const store_location& location, gathered_runs& into) {
  const results_store source(location, store_access::read);  // refuses another program's file and a newer schema
  auto runs = source.list({});
  std::reverse(runs.begin(), runs.end());  // oldest first, as they were saved
  for (const auto& r : runs) {
    const auto label = fmt::format("{} run {}", location.display(), r.id);
    json document;
    try {
      document = json::parse(source.document(r.id));
    } catch (const json::parse_error&) {
      throw usage_error(fmt::format("{} is damaged: its JSON does not parse", label));
    }
    if (!document.is_object() || !document.contains("schema_version")) {
      throw usage_error(fmt::format("{} is damaged: its document is not a run", label));
    }
    auto run = run_of(document, label);
    run.uuid = r.uuid;  // the row's, derived alike for an older database
    into.runs.push_back({std::move(run), label, r.json_path});
  }
}

}  // namespace

gathered_runs gather_runs(const std::vector<fs::path>& paths) {
  gathered_runs gathered;
  for (const auto& path : paths) {
    if (is_postgresql_url(path.native())) {  // another shared store
      read_database(store_location(path.native()), gathered);
      continue;
    }
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
      throw usage_error(fmt::format("cannot read {}: no such file or folder", path.string()));
    if (fs::is_directory(status)) {
      std::vector<fs::path> files;
      for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
           it != end && !ec; it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".json") files.push_back(it->path());
      }
      if (ec) throw usage_error(fmt::format("cannot read folder {}: {}", path.string(), ec.message()));
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        if (auto run = read_run_file(file, false)) {
          gathered.runs.push_back(std::move(*run));
        } else {
          gathered.skipped.push_back(file.string());
        }
      }
    } else if (is_sqlite_file(path)) {
      read_database(path, gathered);
    } else {
      gathered.runs.push_back(*read_run_file(path, true));
    }
  }
  return gathered;
}

import_counts import_runs(results_store& store, const gathered_runs& gathered) {
  import_counts counts;
  for (const auto& g : gathered.runs) {
    const auto outcome = store.add(g.run, g.json_path);
    ++(outcome.added ? counts.added : counts.present);
  }
  return counts;
}

}  // namespace ironbench::results
