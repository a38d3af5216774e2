// Gathering runs written elsewhere (results gather): uuids, JSON and database round trips,
// duplicates, foreign and newer files, and a database of the version before uuids.
#include "results/run_gathering.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/result_json.hpp"
#include "core/statistics.hpp"
#include "results/run_uuid.hpp"
#include "results/sha256.hpp"
#include "temp_dir.hpp"

namespace ironbench::results {
namespace {

namespace fs = std::filesystem;

// A run with everything a stored run carries: tags, host, devices, settings, timed samples,
// telemetry, findings.
core::run_result full_run(const std::string& host, const std::string& start, double bandwidth) {
  core::run_result run;
  run.uuid = new_run_uuid();
  run.tool = {{"name", "ironbench"}, {"version", "0.1.0"}};
  run.argv = {"ironbench", "run", "stream"};
  run.tags = {{"env", "vm"}, {"site", "lab 2"}};
  run.start_time = start;
  run.end_time = start;
  run.host = {{"hostname", host}, {"os", {{"pretty_name", "Debian 12"}}}, {"environment_kind", "vm"}};
  core::device_info cpu;
  cpu.id = "cpu";
  cpu.kind = core::device_kind::cpu;
  cpu.name = "EPYC";
  run.devices.push_back(cpu);
  run.settings = {{"min_reps", 5}, {"device_notes", json::array({"cuda: no GPU"})}};
  core::case_result c;
  c.benchmark = "stream";
  c.device = "cpu";
  c.params.set("size", std::int64_t{1 << 20});
  c.params.set("kernel", std::string("triad"));
  core::measurement m;
  m.samples_s = {0.00101, 0.00099, 0.001, 0.00102};
  m.time_s = core::summarize(m.samples_s);
  c.timing = m;
  c.metrics.push_back({"bandwidth", bandwidth, "GB/s", "bytes moved / median time"});
  c.notes["threads"] = "2";
  run.cases.push_back(c);
  run.telemetry = json::array({json{{"case", 0}, {"device", "cpu"}, {"samples", json::array()}}});
  run.findings = json::array({json{{"check", "governor"}, {"severity", "warning"}}});
  return run;
}

void write_json(const fs::path& path, const json& document) { std::ofstream(path) << core::json_text(document, 2); }

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(RunUuid, FreshOnesAreRandomVersion4AndDerivedOnesFollowTheContent) {
  const auto a = new_run_uuid(), b = new_run_uuid();
  EXPECT_NE(a, b);
  EXPECT_TRUE(is_run_uuid(a)) << a;
  EXPECT_EQ(a[14], '4');
  EXPECT_NE(std::string("89ab").find(a[19]), std::string::npos) << a;

  json document = {{"schema_version", 1}, {"cases", json::array()}, {"start_time", "2026-01-01T00:00:00Z"}};
  const auto derived = derived_run_uuid(document);
  EXPECT_TRUE(is_run_uuid(derived));
  EXPECT_EQ(derived[14], '8');
  // The same content however it was written (indented or compact), with or without a uuid key.
  EXPECT_EQ(derived_run_uuid(json::parse(core::json_text(document, 2))), derived);
  EXPECT_EQ(run_uuid_of(document, "x"), derived);
  document["start_time"] = "2026-01-01T00:00:01Z";
  EXPECT_NE(derived_run_uuid(document), derived);
  document["uuid"] = a;
  EXPECT_EQ(run_uuid_of(document, "x"), a);
  document["uuid"] = "not-a-uuid";
  EXPECT_THROW((void)run_uuid_of(document, "x"), usage_error);
  EXPECT_FALSE(is_run_uuid("0192ABCD-0000-4000-8000-000000000000"));  // lowercase only
}

TEST(RunGathering, JsonFilesRoundTripEveryFieldAndImportOnce) {
  const testing::temp_dir dir("ironbench_gather_");
  const auto run = full_run("node-a", "2026-03-01T02:00:00Z", 80.5);
  write_json(dir / "a.json", core::to_json(run));
  write_json(dir / "b.json", core::to_json(full_run("node-b", "2026-03-02T02:00:00Z", 81)));

  results_store store(dir / "store.db", store_access::write);
  auto counts = import_runs(store, gather_runs({dir / "a.json"}));
  EXPECT_EQ(counts.added, 1u);
  EXPECT_EQ(counts.present, 0u);
  // Again, and the folder (a.json again, b.json new): nothing twice.
  counts = import_runs(store, gather_runs({dir / "a.json"}));
  EXPECT_EQ(counts.added, 0u);
  EXPECT_EQ(counts.present, 1u);
  counts = import_runs(store, gather_runs({dir.path()}));
  EXPECT_EQ(counts.added, 1u);
  EXPECT_EQ(counts.present, 1u);
  ASSERT_EQ(store.list({}).size(), 2u);

  const auto id = store.find(run.uuid);
  ASSERT_TRUE(id.has_value());
  // Every field: the document read back is the document written.
  EXPECT_EQ(core::to_json(store.load(*id)), core::to_json(run));
  EXPECT_EQ(json::parse(store.document(*id)), core::to_json(run));
  const auto listed = store.list({});
  const auto row = std::find_if(listed.begin(), listed.end(), [&](const stored_run& r) { return r.id == *id; });
  EXPECT_EQ(row->uuid, run.uuid);
  EXPECT_EQ(row->tags, run.tags);
  EXPECT_EQ(row->host, "node-a");
  EXPECT_EQ(row->json_path, fs::absolute(dir / "a.json").string());
}

TEST(RunGathering, DatabasesRoundTripAndKeepUuids) {
  const testing::temp_dir dir("ironbench_gather_");
  results_store node(dir / "node.db", store_access::write);
  std::vector<core::run_result> runs;
  for (int night = 1; night <= 3; ++night) {
    runs.push_back(full_run("node-a", fmt::format("2026-03-0{}T02:00:00Z", night), 80 + night));
    (void)node.save(runs.back(), fmt::format("/data/night{}.json", night));
  }
  core::run_result without_uuid = full_run("node-a", "2026-03-04T02:00:00Z", 84);
  without_uuid.uuid.clear();
  const auto saved_id = node.save(without_uuid, "");  // the store gives it one
  const auto given = node.load(saved_id).uuid;
  EXPECT_TRUE(is_run_uuid(given));

  results_store shared(dir / "shared.db", store_access::write);
  auto counts = import_runs(shared, gather_runs({dir / "node.db"}));
  EXPECT_EQ(counts.added, 4u);
  counts = import_runs(shared, gather_runs({dir / "node.db", dir / "node.db"}));
  EXPECT_EQ(counts.added, 0u);
  EXPECT_EQ(counts.present, 8u);
  for (const auto& r : node.list({})) {
    const auto there = shared.find(r.uuid);
    ASSERT_TRUE(there.has_value()) << r.uuid;
    EXPECT_EQ(json::parse(shared.document(*there)), json::parse(node.document(r.id)));
    const auto copies = shared.list({});
    const auto copy = std::find_if(copies.begin(), copies.end(), [&](const stored_run& c) { return c.id == *there; });
    EXPECT_EQ(copy->tags, r.tags);
    EXPECT_EQ(copy->start_time, r.start_time);
    EXPECT_EQ(copy->end_time, r.end_time);
    EXPECT_EQ(copy->host, r.host);
    EXPECT_EQ(copy->command, r.command);
    EXPECT_EQ(copy->status, r.status);
    EXPECT_EQ(copy->case_count, r.case_count);
    EXPECT_EQ(copy->json_path, r.json_path);
    EXPECT_EQ(copy->benchmarks, r.benchmarks);
  }
  EXPECT_TRUE(shared.find(given).has_value());
  // A run exported from the shared store and imported into the node's again is known there.
  write_json(dir / "exported.json", core::to_json(shared.load(*shared.find(runs[0].uuid))));
  counts = import_runs(node, gather_runs({dir / "exported.json"}));
  EXPECT_EQ(counts.present, 1u);
  EXPECT_THROW((void)node.save(runs[0], ""), usage_error) << "saving a run already stored";
}

std::string refusal(const std::vector<fs::path>& paths) {
  try {
    (void)gather_runs(paths);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(RunGathering, RefusesCorruptForeignAndNewerFilesInOneLine) {
  const testing::temp_dir dir("ironbench_gather_");
  const auto good = core::to_json(full_run("n", "2026-03-01T00:00:00Z", 1));
  { std::ofstream(dir / "cut.json") << core::json_text(good).substr(0, 200); }
  write_json(dir / "vllm.json", json{{"model_id", "m"}, {"completed", 10}});
  auto newer = good;
  newer["schema_version"] = 99;
  write_json(dir / "newer.json", newer);
  auto other_tool = good;
  other_tool["tool"]["name"] = "other";
  write_json(dir / "other.json", other_tool);
  { std::ofstream(dir / "text.db") << "SQLite format 2 is not what this is\n"; }

  for (const auto& [file, expected] :
       std::vector<std::pair<std::string, std::string>>{{"cut.json", "not valid JSON"},
                                                        {"vllm.json", "not an ironbench run"},
                                                        {"other.json", "not an ironbench run"},
                                                        {"newer.json", "newer than this build"},
                                                        {"text.db", "not valid JSON"},
                                                        {"missing.json", "no such file"}}) {
    const auto message = refusal({dir / file});
    EXPECT_NE(message.find(expected), std::string::npos) << file << ": " << message;
    EXPECT_NE(message.find(file), std::string::npos) << "names the file: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }

  // Another program's SQLite file, and a results database of a newer schema.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "songs.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE songs(title TEXT)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_NE(refusal({dir / "songs.db"}).find("not an ironbench results database"), std::string::npos);
  { results_store newer_db(dir / "newer.db", store_access::write); }
  ASSERT_EQ(sqlite3_open((dir / "newer.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_NE(refusal({dir / "newer.db"}).find("newer than this build"), std::string::npos);

  // In a folder: a corrupt file refuses the import, JSON of another kind is skipped.
  const testing::temp_dir folder("ironbench_gather_");
  write_json(folder / "run.json", good);
  write_json(folder / "vllm.json", json{{"model_id", "m"}});
  const auto gathered = gather_runs({folder.path()});
  EXPECT_EQ(gathered.runs.size(), 1u);
  EXPECT_EQ(gathered.skipped, std::vector<std::string>{(folder / "vllm.json").string()});
  { std::ofstream(folder / "cut.json") << "{\"schema_version\": 1, \"cases\": ["; }
  EXPECT_NE(refusal({folder.path()}).find("cut.json: not an ironbench run: not valid JSON"), std::string::npos);
}

// A database of version 1 (before uuids): read as it is, and migrated when written, its rows
// given the uuids derived from their documents, the same as their JSON files give.
TEST(RunGathering, VersionOneDatabasesGetDerivedUuids) {
  const testing::temp_dir dir("ironbench_gather_");
  auto old = full_run("old", "2025-01-01T00:00:00Z", 50);
  old.uuid.clear();
  const auto document = core::to_json(old);
  write_json(dir / "old.json", document);
  const auto path = dir / "v1.db";
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const std::string text = core::json_text(document);
    std::string escaped;
    for (const char c : text) escaped += c == '\'' ? std::string("''") : std::string(1, c);
    const auto sql = fmt::format(R"sql(
CREATE TABLE runs(id INTEGER PRIMARY KEY AUTOINCREMENT, start_time TEXT NOT NULL, end_time TEXT NOT NULL,
  host TEXT NOT NULL, command TEXT NOT NULL, status TEXT NOT NULL, case_count INTEGER NOT NULL,
  json_path TEXT NOT NULL, document TEXT NOT NULL,
  saved_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
CREATE TABLE run_tags(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL,
  value TEXT NOT NULL, PRIMARY KEY(run_id, key));
CREATE TABLE cases(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, case_index INTEGER NOT NULL,
  benchmark TEXT NOT NULL, device TEXT NOT NULL, params TEXT NOT NULL, status TEXT NOT NULL,
  metrics TEXT NOT NULL, PRIMARY KEY(run_id, case_index));
INSERT INTO runs(start_time, end_time, host, command, status, case_count, json_path, document)
  VALUES('2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 'old', 'run', 'valid', 1, '', '{0}');
INSERT INTO runs(start_time, end_time, host, command, status, case_count, json_path, document)
  VALUES('2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', 'old', 'run', 'valid', 1, '', '{0}');
PRAGMA application_id=1230130754;
PRAGMA user_version=1;
)sql",
                                 escaped);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  const auto expected = derived_run_uuid(document);
  {
    const results_store reader(path);
    EXPECT_EQ(reader.schema_version(), 1) << "reading migrates nothing";
    EXPECT_EQ(reader.list({}).back().uuid, expected);
    EXPECT_EQ(reader.load(1).uuid, expected);
  }
  results_store writer(path, store_access::write);
  EXPECT_EQ(writer.schema_version(), store_schema_version);
  const auto rows = writer.list({});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].uuid, expected);  // the older row (newest first)
  EXPECT_NE(rows[0].uuid, expected) << "a second row with the same document gets its own";
  EXPECT_TRUE(is_run_uuid(rows[0].uuid));
  // The old JSON file of that run is the run already stored.
  const auto counts = import_runs(writer, gather_runs({dir / "old.json"}));
  EXPECT_EQ(counts.present, 1u);
  EXPECT_EQ(counts.added, 0u);
}

// ---- issue 44: each run stored as read, every refusal naming its file, folders' odd entries ----

// import_sources into `store`, the refusals as they came.
import_summary import_into(results_store& store, const std::vector<fs::path>& paths, int* opened = nullptr) {
  return import_sources(paths, [&]() -> results_store& {
    if (opened != nullptr) ++*opened;
    return store;
  });
}

TEST(RunGatheringStreamed, EachRunIsStoredAsItIsReadAndABadFileOnlyRefusesItself) {
  const testing::temp_dir dir("ironbench_gather_");
  const testing::temp_dir folder("ironbench_gather_");
  const auto a = full_run("a", "2026-03-01T00:00:00Z", 1), c = full_run("c", "2026-03-03T00:00:00Z", 3);
  write_json(folder / "a.json", core::to_json(a));
  { std::ofstream(folder / "b.json") << "{\"schema_version\": 1, \"cases\": ["; }
  write_json(folder / "c.json", core::to_json(c));
  results_store store(dir / "store.db", store_access::write);
  std::vector<std::string> stored_when_b_was_refused;
  const auto summary = import_sources(
      {folder.path()}, [&]() -> results_store& { return store; },
      [&](const std::string&) {
        for (const auto& r : store.list({})) stored_when_b_was_refused.push_back(r.uuid);
      });
  EXPECT_EQ(summary.counts.added, 2u);
  ASSERT_EQ(summary.refused.size(), 1u);
  EXPECT_NE(summary.refused[0].find((folder / "b.json").string() + ": not an ironbench run: not valid JSON"),
            std::string::npos)
      << summary.refused[0];
  EXPECT_EQ(stored_when_b_was_refused, std::vector<std::string>{a.uuid}) << "a.json was stored before b.json was read";
  // Stored through the path that moves the telemetry: the document read back is the one written.
  EXPECT_EQ(json::parse(store.document(*store.find(c.uuid))), core::to_json(c));
  // A refused source alone opens no store.
  int opened = 0;
  const auto refused = import_into(store, {folder / "b.json"}, &opened);
  EXPECT_EQ(opened, 0);
  EXPECT_EQ(refused.refused.size(), 1u);
}

TEST(RunGatheringStreamed, LoopsFifosAndDanglingLinksInAFolderArePassedOverByName) {
  const testing::temp_dir dir("ironbench_gather_");
  const testing::temp_dir folder("ironbench_gather_");
  write_json(folder / "run.json", core::to_json(full_run("n", "2026-03-01T00:00:00Z", 1)));
  fs::create_symlink("loop-b.json", folder / "loop-a.json");
  fs::create_symlink("loop-a.json", folder / "loop-b.json");
  fs::create_symlink("nowhere.json", folder / "dangling.json");
  ASSERT_EQ(::mkfifo((folder / "pipe.json").c_str(), 0600), 0);
  fs::create_directory(folder / "sub");
  fs::create_directory_symlink(folder.path(), folder / "sub" / "up");  // a folder loop, not followed
  results_store store(dir / "store.db", store_access::write);
  const auto summary = import_into(store, {folder.path()});
  EXPECT_EQ(summary.counts.added, 1u);
  EXPECT_TRUE(summary.refused.empty()) << summary.refused.front();
  const auto notes = fmt::format("{}", fmt::join(summary.passed_over, "\n"));
  EXPECT_EQ(summary.passed_over.size(), 4u) << notes;
  for (const auto& [name, why] :
       std::vector<std::pair<std::string, std::string>>{{"loop-a.json", "a loop of symbolic links"},
                                                        {"loop-b.json", "a loop of symbolic links"},
                                                        {"dangling.json", "a symbolic link that leads nowhere"},
                                                        {"pipe.json", "a named pipe (FIFO)"}}) {
    EXPECT_NE(notes.find((folder / name).string() + ": " + why), std::string::npos) << notes;
  }
}

TEST(RunGatheringStreamed, AFifoADamagedDatabaseAndAnOverflowingNumberAreRefusedNamingTheFile) {
  const testing::temp_dir dir("ironbench_gather_");
  results_store store(dir / "store.db", store_access::write);
  const auto refusal_of = [&](const fs::path& path) {
    const auto summary = import_into(store, {path});
    EXPECT_EQ(summary.refused.size(), 1u) << path;
    const auto message = summary.refused.empty() ? std::string() : summary.refused.front();
    EXPECT_NE(message.find(path.string()), std::string::npos) << "names the file: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  };
  // A FIFO nobody writes: refused at once, never opened (it blocked before).
  ASSERT_EQ(::mkfifo((dir / "pipe.json").c_str(), 0600), 0);
  const auto started = std::chrono::steady_clock::now();
  EXPECT_NE(refusal_of(dir / "pipe.json").find("it is a named pipe (FIFO)"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  // "schema_version": 1e400 (the JSON parser's overflow escaped as exit 1 before).
  { std::ofstream(dir / "overflow.json") << R"({"schema_version": 1e400, "cases": []})"; }
  EXPECT_NE(refusal_of(dir / "overflow.json")
                .find("overflow.json: not an ironbench run: not valid JSON: number overflow parsing '1e400'"),
            std::string::npos)
      << refusal_of(dir / "overflow.json");
  // A results database whose pages are damaged (SQLite's error escaped as exit 1 before).
  {
    results_store node(dir / "node.db", store_access::write);
    for (int i = 0; i < 3; ++i) (void)node.save(full_run("n", "2026-03-01T00:00:00Z", i), "");
  }
  {
    std::fstream f(dir / "node.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096 + 10);
    const std::string garbage(3000, '\x07');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  EXPECT_NE(refusal_of(dir / "node.db").find("cannot read results database"), std::string::npos);
  // A file over the run file limit (sparse): refused before it is read.
  {
    std::ofstream(dir / "huge.json") << "{";
    fs::resize_file(dir / "huge.json", max_run_file_bytes + 1);
  }
  EXPECT_NE(refusal_of(dir / "huge.json").find("more than the 1024 MiB a run file may be"), std::string::npos);
}

TEST(RunGatheringStreamed, TagsAndArgvAreCheckedAsTheCommandLineChecksThem) {
  const testing::temp_dir dir("ironbench_gather_");
  results_store store(dir / "store.db", store_access::write);
  const auto good = core::to_json(full_run("n", "2026-03-01T00:00:00Z", 1));
  int n = 0;
  const auto import_with = [&](const std::string& key, const json& value) {
    auto document = good;
    document["uuid"] = new_run_uuid();
    document[key] = value;
    const auto path = dir / fmt::format("run{}.json", n++);
    write_json(path, document);
    return import_into(store, {path});
  };
  for (const auto& tags : {json{{"env\nhost", "x"}}, json{{"a=b", "c"}}, json{{"k;rm", "x"}}, json{{"$(id)", "x"}},
                           json{{"env", "vm\nnode=b"}}, json{{"env", 3}}, json::array({"env=vm"}), json("env=vm")}) {
    const auto summary = import_with("tags", tags);
    EXPECT_EQ(summary.counts.added, 0u) << tags.dump();
    ASSERT_EQ(summary.refused.size(), 1u) << tags.dump();
    EXPECT_NE(summary.refused[0].find("tag"), std::string::npos) << summary.refused[0];
  }
  for (const auto& argv : {json("ironbench run"), json::array({"ironbench", 7}), json{{"0", "ironbench"}}}) {
    const auto summary = import_with("argv", argv);
    ASSERT_EQ(summary.refused.size(), 1u) << argv.dump();
    EXPECT_NE(summary.refused[0].find("'argv' is"), std::string::npos) << summary.refused[0];
  }
  // What --tag writes, an empty value, and no tags at all, are runs.
  EXPECT_EQ(import_with("tags", json{{"env", "vm"}, {"gpu.kind-2_a", "MI300X (192 GB); 8 x"}}).counts.added, 1u);
  EXPECT_EQ(import_with("tags", json{{"note", ""}}).counts.added, 1u);
  EXPECT_EQ(import_with("tags", json::object()).counts.added, 1u);
}

}  // namespace
}  // namespace ironbench::results
