// vLLM bench serve's result object of one `serve` point (same keys, so that tools reading
// vLLM's files read ironbench's), and the files --save-result and --save-detailed write.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "core/json.hpp"
#include "serve/client/load_generator.hpp"
#include "serve/client/openai_stream.hpp"

namespace ironbench::serve {

/// Which result files a sweep writes and where.
struct result_file_options {
  bool save_result = false;    ///< one vLLM result JSON per point (--save-result)
  bool save_detailed = false;  ///< with the per-request arrays and a .requests.jsonl file (--save-detailed)
  std::string result_dir = ".";
  std::string result_filename;  ///< the file name of a sweep of one point (empty: vLLM's pattern)
};

/// What a point's result object says about how it was run.
struct point_description {
  std::string date;  ///< "20250217-104118", UTC
  openai_api api = openai_api::completions;
  std::string model;
  std::string tokenizer;  ///< --tokenizer as given (empty: null)
  std::size_t num_prompts = 0;
  double request_rate = 0;  ///< inf: all at once
  double burstiness = 1;
  int max_concurrency = 0;  ///< 0: unlimited (null)
};

/// The result object of one point: the description, the serving metrics, the client's own
/// timing ("client"), the endpoints and how tokens were counted.
[[nodiscard]] json vllm_point_json(const point_description& point, const json& metrics, const load_result& result);

/// vLLM's file name of a point: BACKEND-RATEqps-cCONCURRENCY-DATE.json (concurrency "inf" when unlimited).
[[nodiscard]] std::string result_file_name(const json& point, double request_rate, int max_concurrency,
                                           const std::string& date);

/// Creates options.result_dir when results are saved; usage_error when that fails.
void prepare_result_dir(const result_file_options& options);

/// Writes `point` to result_dir/name (with the detailed arrays and a .requests.jsonl file
/// beside it when save_detailed); returns the path. Throws error when a file cannot be written.
std::filesystem::path write_result_file(const json& point, const load_result& result,
                                        const result_file_options& options, const std::string& name);

}  // namespace ironbench::serve
