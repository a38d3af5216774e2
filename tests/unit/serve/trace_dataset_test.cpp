#include "serve/workload/trace_dataset.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <functional>

#include "serve/workload/datasets.hpp"
#include "temp_dir.hpp"
#include "usage_message.hpp"

namespace ironbench::serve {
namespace {

std::vector<trace_entry> trace_of(const std::string& text) {
  testing::temp_dir dir;
  const auto path = (dir.path() / "t.jsonl").string();
  std::ofstream(path) << text;
  return read_trace(path);
}

TEST(TraceDataset, ReadsMooncakeAndPlainLines) {
  const auto t = trace_of(
      "{\"timestamp\": 1500, \"input_length\": 700, \"output_length\": 52, \"hash_ids\": [46, 47]}\n"
      "\n"
      "{\"time_s\": 2.25, \"input_len\": 10, \"output_len\": 5}\n"
      "{\"time_s\": 3, \"prompt\": \"one two three\", \"output_len\": 7}\n");
  ASSERT_EQ(t.size(), 3U);
  EXPECT_DOUBLE_EQ(t[0].at_s, 1.5);
  EXPECT_EQ(t[0].input_len, 700);
  EXPECT_EQ(t[0].hash_ids, (std::vector<std::int64_t>{46, 47}));
  EXPECT_DOUBLE_EQ(t[1].at_s, 2.25);
  EXPECT_EQ(t[1].output_len, 5);
  EXPECT_EQ(*t[2].prompt, "one two three");
  EXPECT_EQ(t[2].input_len, 3);
}

// Block k of a prompt: its token ids (completions prompts are lists of ids).
std::vector<std::int64_t> ids_of(const prepared_request& r) { return json::parse(r.body).at("prompt"); }

TEST(TraceDataset, EqualHashIdsGiveEqualBlocksAndTimesStartAtZero) {
  const auto t = trace_of(
      "{\"timestamp\": 1000, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [5, 6, 7]}\n"
      "{\"timestamp\": 1250, \"input_length\": 9, \"output_length\": 3, \"hash_ids\": [5, 6, 8]}\n"
      "{\"timestamp\": 1300, \"input_length\": 4, \"output_length\": 3, \"hash_ids\": [9]}\n");
  body_settings body;
  body.model = "m";
  const auto requests = make_trace_requests(t, {4, 32000}, body, 10);
  ASSERT_EQ(requests.size(), 3U);
  EXPECT_DOUBLE_EQ(requests[0].send_at_s, 0);
  EXPECT_DOUBLE_EQ(requests[1].send_at_s, 0.25);
  EXPECT_DOUBLE_EQ(requests[2].send_at_s, 0.3);
  const auto a = ids_of(requests[0]), b = ids_of(requests[1]), c = ids_of(requests[2]);
  ASSERT_EQ(a.size(), 10U);
  ASSERT_EQ(b.size(), 9U);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 8, b.begin())) << "blocks 5 and 6 are shared";
  EXPECT_NE(a[8], b[8]) << "blocks 7 and 8 differ";
  EXPECT_NE(std::vector<std::int64_t>(a.begin(), a.begin() + 4), c);
  EXPECT_EQ(json::parse(requests[1].body).at("max_tokens"), 3);
  EXPECT_EQ(make_trace_requests(t, {4, 32000}, body, 2).size(), 2U) << "--num-prompts takes the first entries";
  EXPECT_EQ(ids_of(make_trace_requests(t, {4, 32000}, body, 1)[0]), a) << "the same trace, the same prompts";
}

// --dataset-path goes through core::bounded_reader: a regular file only (a FIFO blocked in
// open() and ignored SIGINT, /dev/zero read 1.2 GB before "has no prompts"), a line of at most
// 16 MiB (a 300 MB one-line file took 700 MB), and no further than the requests wanted.
TEST(DatasetFiles, EveryDatasetIsReadThroughTheBoundedReader) {
  testing::temp_dir dir;
  const auto fifo = (dir.path() / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto long_line = dir.write("long.jsonl", std::string(17 * 1024 * 1024, 'x') + "\n").string();
  body_settings body;
  body.model = "m";
  const std::vector<std::function<void(const std::string&)>> readers = {
      [](const std::string& path) { (void)read_trace(path); },
      [&](const std::string& path) { (void)make_custom_requests(path, 8, body, 10); },
      [](const std::string& path) { (void)read_sharegpt_file(path); }};
  for (const auto& read : readers) {
    for (const auto& [path, why] : std::vector<std::pair<std::string, std::string>>{
             {fifo, "it is a named pipe (FIFO); a --dataset-path file is read from a regular file"},
             {"/dev/zero", "it is a character device, not a regular file"}}) {
      EXPECT_EQ(testing::usage_message([&] { read(path); }), "cannot read --dataset-path file '" + path + "': " + why);
    }
  }
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(testing::usage_message([&] { readers[i](long_line); }),
              "cannot read --dataset-path file '" + long_line + "': line 1 holds more than the 16 MiB a line may be");
  }
  // Only the entries wanted are read: a malformed line after them is never reached.
  const auto trace = dir.write("t.jsonl",
                               "{\"time_s\": 0, \"input_len\": 4, \"output_len\": 2}\n"
                               "{\"time_s\": 1, \"input_len\": 4, \"output_len\": 2}\nnot json\n")
                         .string();
  EXPECT_EQ(read_trace(trace, 2).size(), 2U);
  EXPECT_NE(testing::usage_message([&] { (void)read_trace(trace); }).find("line 3: not a JSON object"),
            std::string::npos);
}

}  // namespace
}  // namespace ironbench::serve
