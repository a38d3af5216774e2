#include "serve/workload/dataset_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("ironbench_dataset_table_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// A file each dataset that reads --dataset-path can build from.
std::string file_for(std::string_view dataset) {
  if (dataset == "custom") return temp_file("custom.jsonl", "{\"prompt\": \"a b c d\"}\n");
  if (dataset == "trace") {
    std::string lines;
    for (int i = 0; i < 3; ++i)
      lines += R"({"timestamp": )" + std::to_string(i * 10) +
               R"(, "input_length": 6, "output_length": 2})"
               "\n";
    return temp_file("trace.jsonl", lines);
  }
  if (dataset == "sharegpt") {
    const json turns =
        json::array({{{"from", "human"}, {"value", "one two three four"}}, {{"from", "gpt"}, {"value", "a b c d e"}}});
    const json conversations = json::array({{{"conversations", turns}}});
    return temp_file("sharegpt.json", conversations.dump());
  }
  return {};
}

TEST(DatasetTable, EveryRowIsReachableByNameAndBuildsRequests) {
  dataset_options options;
  options.random.input_len = 8;
  options.random.output_len = 4;
  options.prefix_repetition.prefix_len = 4;
  options.prefix_repetition.suffix_len = 4;
  body_settings body;
  body.model = "m";
  ASSERT_EQ(serving_datasets().size(), 6u);
  for (const auto& row : serving_datasets()) {
    SCOPED_TRACE(std::string(row.name));
    const auto& found = dataset_named(std::string(row.name));
    EXPECT_EQ(&found, &row);
    ASSERT_NE(found.build, nullptr);
    const auto path = row.needs_path ? file_for(row.name) : std::string();
    const auto requests = found.build({options, body, path, 3, 1, nullptr, 32000});
    // The conversation dataset counts conversations: 3 of 5 turns each.
    EXPECT_EQ(requests.size(), row.name == "conversation" ? 15u : 3u);
    for (const auto& r : requests) EXPECT_FALSE(r.body.empty());
  }
}

TEST(DatasetTable, RowsNeedingAPathAreTheFileDatasets) {
  std::map<std::string, bool> needs;
  for (const auto& row : serving_datasets()) needs[std::string(row.name)] = row.needs_path;
  EXPECT_EQ(needs, (std::map<std::string, bool>{{"random", false},
                                                {"sharegpt", true},
                                                {"custom", true},
                                                {"prefix_repetition", false},
                                                {"conversation", false},
                                                {"trace", true}}));
}

TEST(DatasetTable, UnknownNameListsEveryDataset) {
  try {
    (void)dataset_named("sonnet");
    FAIL() << "no usage_error";
  } catch (const usage_error& e) {
    EXPECT_STREQ(
        e.what(),
        "--dataset-name 'sonnet' is not available (random, sharegpt, custom, prefix_repetition, conversation, trace)");
  }
}

TEST(DatasetTable, HelpNamesEveryDatasetWithDetailsLast) {
  EXPECT_EQ(dataset_name_help(),
            "random, sharegpt, prefix_repetition, conversation, custom (JSONL of {\"prompt\": ...}), or trace (JSONL "
            "replayed at its "
            "times: "
            "Mooncake's or {\"time_s\", \"input_len\", \"output_len\"})");
}

}  // namespace
}  // namespace ironbench::serve
