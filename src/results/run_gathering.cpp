#include "results/run_gathering.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/bounded_file.hpp"
#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "results/import_text.hpp"
#include "results/run_uuid.hpp"

namespace ironbench::results {
namespace {

namespace fs = std::filesystem;

/// A failure of the target store while a source is walked: carried past the walk's handlers
/// (which refuse sources), so that it ends the import instead of refusing a source.
struct target_failure : std::runtime_error {
  target_failure(const std::string& message, bool usage) : std::runtime_error(message), usage(usage) {}
  bool usage;
};

/// A run file, however many samples and kept texts it holds.
constexpr core::file_kind run_file{"run file", max_run_file_bytes};

/// Whether the regular file at `path` starts with SQLite's header. Opened without blocking, so
/// that a file swapped for a FIFO cannot hang the check; anything but a regular file is no
/// database.
bool is_sqlite_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat opened {};
  char header[16] = {};
  ssize_t n = -1;
  if (::fstat(fd, &opened) == 0 && S_ISREG(opened.st_mode)) n = ::read(fd, header, sizeof header);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof header) &&
         std::string_view(header, sizeof header) == std::string_view("SQLite format 3\0", 16);
}

/// Why the entry at `path` is no file to read ("" when it is a regular file or a link to one).
std::string not_a_file(const fs::path& path) {
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) {
    if (errno == ELOOP) return "a loop of symbolic links";
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) return "a symbolic link that leads nowhere";
    return std::strerror(errno);
  }
  if (S_ISREG(target.st_mode)) return "";
  if (S_ISFIFO(target.st_mode)) return "a named pipe (FIFO), not a regular file";
  if (S_ISDIR(target.st_mode)) return "a directory";
  if (S_ISSOCK(target.st_mode)) return "a socket, not a regular file";
  if (S_ISCHR(target.st_mode) || S_ISBLK(target.st_mode)) return "a device, not a regular file";
  return "not a regular file";
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

/// Refuses what ironbench never writes and what would break the listings: tags that are not an
/// object of one-line strings under keys of --tag's characters (a key with a newline, '=', ';'
/// or "$()" split `results list`'s rows), an argv that is not a list of strings.
void check_labels(const json& document, const std::string& source) {
  if (document.contains("tags") && !document.at("tags").is_null()) {
    const auto& tags = document.at("tags");
    if (!tags.is_object()) {
      throw usage_error(
          fmt::format("{}: 'tags' is {}, not an object of KEY: VALUE", source, excerpt(core::json_text(tags))));
    }
    for (const auto& [key, value] : tags.items()) {
      if (!value.is_string()) {
        throw usage_error(
            fmt::format("{}: tag '{}' is {}, not a string", source, excerpt(key), excerpt(core::json_text(value))));
      }
      // (An empty value is let through: --tag refuses one, but it harms no listing.)
      const auto text = value.get<std::string>();
      if (!is_valid_tag(key, text.empty() ? std::string_view("-") : std::string_view(text))) {
        throw usage_error(
            fmt::format("{}: tag {}={} is not KEY=VALUE as --tag takes it (KEY: letters, digits, "
                        "'_', '-', '.'; VALUE: one line)",
                        source, excerpt(core::json_text(json(key))), excerpt(core::json_text(value))));
      }
    }
  }
  if (document.contains("argv") && !document.at("argv").is_null()) {
    const auto& argv = document.at("argv");
    if (!argv.is_array() || !std::all_of(argv.begin(), argv.end(), [](const json& a) { return a.is_string(); })) {
      throw usage_error(fmt::format("{}: 'argv' is {}, not a list of strings", source, excerpt(core::json_text(argv))));
    }
  }
}

/// The run in `document` read from `source`; throws usage_error when it is none or newer. The
/// document's telemetry (most of a long GPU run) is moved into the run, not copied.
core::run_result run_of(json& document, const std::string& source) {
  const auto& version = document.at("schema_version");
  if (!version.is_number_integer() || version.get<double>() < 1) {
    throw usage_error(
        fmt::format("{}: 'schema_version' is {}, not a positive integer", source, excerpt(core::json_text(version))));
  }
  if (version.get<double>() > core::result_schema_version) {
    throw usage_error(fmt::format("{} has result schema version {}, newer than this build's {}: use a newer ironbench",
                                  source, excerpt(core::json_text(version)), core::result_schema_version));
  }
  check_labels(document, source);
  const auto uuid = run_uuid_of(document, source);  // derived from the whole document, when it has none
  json telemetry;
  if (document.contains("telemetry") && document.at("telemetry").is_array()) {
    telemetry = std::move(document["telemetry"]);
    document["telemetry"] = json::array();
  }
  core::run_result run;
  try {
    run = core::run_from_json(document, source);
  } catch (const usage_error&) {
    throw;
  } catch (const error& e) {
    throw usage_error(e.what());
  } catch (const json::exception& e) {
    throw usage_error(fmt::format("{}: not an ironbench run: {}", source, e.what()));
  }
  if (telemetry.is_array()) run.telemetry = std::move(telemetry);
  run.uuid = uuid;
  return run;
}

/// Reads the JSON file at `path`. nullopt: it is JSON but not an ironbench run (only asked
/// for by folders: `strict` refuses it instead).
std::optional<gathered_run> read_run_file(const fs::path& path, bool strict) {
  json document;
  {
    const auto text = core::read_bounded_file(path.string(), run_file);  // freed once parsed
    try {
      document = json::parse(text);
    } catch (const json::parse_error& e) {
      throw usage_error(fmt::format("{}: not an ironbench run: not valid JSON (byte {})", path.string(), e.byte));
    } catch (const json::exception& e) {  // a number beyond a double ("schema_version": 1e400)
      // nlohmann's message without its "[json.exception.out_of_range.406] " prefix.
      const std::string_view what = e.what();
      const auto end = what.find("] ");
      throw usage_error(fmt::format("{}: not an ironbench run: not valid JSON: {}", path.string(),
                                    end == std::string_view::npos ? what : what.substr(end + 2)));
    }
  }
  if (!looks_like_run(document)) {
    if (!strict) return std::nullopt;
    throw usage_error(
        fmt::format("{}: not an ironbench run (no schema_version and cases of ironbench's result format; "
                    "another tool's output is read by `ironbench import FORMAT FILE`)",
                    path.string()));
  }
  auto run = run_of(document, path.string());
  return gathered_run{std::move(run), path.string(), fs::absolute(path).string()};
}

/// Every run of the database at `location`, one at a time.
void read_database(const store_location& location, const gathering_visitor& visit) {
  const auto& name = location.display();
  try {
    const results_store source(location, store_access::read);  // refuses another program's file and a newer schema
    auto runs = source.list({});
    std::reverse(runs.begin(), runs.end());  // oldest first, as they were saved
    for (const auto& r : runs) {
      const auto label = fmt::format("{} run {}", name, r.id);
      json document;
      try {
        document = json::parse(source.document(r.id));
      } catch (const json::exception&) {
        throw usage_error(fmt::format("{} is damaged: its JSON does not parse", label));
      }
      if (!document.is_object() || !document.contains("schema_version")) {
        throw usage_error(fmt::format("{} is damaged: its document is not a run", label));
      }
      auto run = run_of(document, label);
      document = json();
      run.uuid = r.uuid;  // the row's, derived alike for an older database
      visit.run({std::move(run), label, r.json_path});
    }
  } catch (const usage_error& e) {
    const std::string what = e.what();
    if (what.find(name) != std::string::npos) throw;
    throw usage_error(fmt::format("cannot read results database {}: {}", name, what));
  } catch (const error& e) {  // SQLite's or the server's own failure: a damaged database
    throw usage_error(fmt::format("cannot read results database {}: {}", name, e.what()));
  }
}

/// The *.json files under `folder`, in name order; entries that are no file to read passed over.
std::vector<fs::path> json_files_under(const fs::path& folder, const gathering_visitor& visit) {
  std::vector<fs::path> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw usage_error(fmt::format("cannot read folder {}: {}", folder.string(), ec.message()));
  for (const fs::recursive_directory_iterator end; it != end;) {
    const auto& entry = it->path();
    if (entry.extension() == ".json") {
      if (const auto why = not_a_file(entry); why.empty()) {
        files.push_back(entry);
      } else if (visit.passed_over) {
        visit.passed_over(fmt::format("{}: {}", entry.string(), why));
      }
    }
    it.increment(ec);
    if (ec) {  // a folder that cannot be listed further: what was found is still imported
      if (visit.passed_over) visit.passed_over(fmt::format("{}: {}", folder.string(), ec.message()));
      break;
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void gather_source(const fs::path& path, const gathering_visitor& visit) {
  if (is_postgresql_url(path.native())) {  // another shared store
    read_database(store_location(path.native()), visit);
    return;
  }
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    if (const auto why = not_a_file(path); why.find("symbolic link") != std::string::npos) {
      throw usage_error(fmt::format("cannot read {}: {}", path.string(), why));
    }
    throw usage_error(fmt::format("cannot read {}: no such file or folder", path.string()));
  }
  if (fs::is_directory(status)) {
    for (const auto& file : json_files_under(path, visit)) {
      try {
        if (auto run = read_run_file(file, false)) {
          visit.run(std::move(*run));
        } else if (visit.skipped) {
          visit.skipped(file.string());
        }
      } catch (const usage_error& e) {
        visit.refused(e.what());  // the folder's other files are still read
      }
    }
    return;
  }
  if (!fs::is_regular_file(status)) {
    // A FIFO, a socket or a device: refused at once, in the bounded reader's words, never opened.
    (void)core::read_bounded_file(path.string(), run_file);
    throw usage_error(fmt::format("cannot read run file '{}': it is not a regular file", path.string()));
  }
  if (is_sqlite_file(path)) {
    read_database(path, visit);
  } else {
    visit.run(std::move(*read_run_file(path, true)));
  }
}

}  // namespace

void gather_runs(const std::vector<fs::path>& paths, const gathering_visitor& visit) {
  for (const auto& path : paths) {
    try {
      gather_source(path, visit);
    } catch (const usage_error& e) {
      visit.refused(e.what());
    }
  }
}

gathered_runs gather_runs(const std::vector<fs::path>& paths) {
  gathered_runs gathered;
  gathering_visitor visit;
  visit.run = [&](gathered_run&& run) { gathered.runs.push_back(std::move(run)); };
  visit.skipped = [&](const std::string& path) { gathered.skipped.push_back(path); };
  visit.refused = [](const std::string& message) { throw usage_error(message); };
  for (const auto& path : paths) gather_source(path, visit);
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

import_summary import_sources(const std::vector<fs::path>& paths, const std::function<results_store&()>& store,
                              const std::function<void(const std::string&)>& on_refused) {
  import_summary summary;
  gathering_visitor visit;
  visit.run = [&](gathered_run&& g) {
    try {
      const auto outcome = store().add(std::move(g.run), g.json_path);
      ++(outcome.added ? summary.counts.added : summary.counts.present);
    } catch (const usage_error& e) {
      throw target_failure(e.what(), true);
    } catch (const error& e) {
      throw target_failure(e.what(), false);
    }
  };
  visit.skipped = [&](const std::string& path) { summary.skipped.push_back(path); };
  visit.passed_over = [&](const std::string& note) { summary.passed_over.push_back(note); };
  visit.refused = [&](const std::string& message) {
    summary.refused.push_back(message);
    if (on_refused) on_refused(message);
  };
  try {
    gather_runs(paths, visit);
  } catch (const target_failure& e) {
    if (e.usage) throw usage_error(e.what());
    throw error(e.what());
  }
  return summary;
}

}  // namespace ironbench::results
