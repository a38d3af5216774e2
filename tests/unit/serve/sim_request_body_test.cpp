// serve-sim's reading of a request body: every field it acts on is type-checked, and a wrong
// type is an error naming the field, not an exception that would end the server.
#include "serve/sim/sim_request_body.hpp"

#include <gtest/gtest.h>

namespace ironbench::serve {
namespace {

std::string error_of(const std::string& body) { return read_sim_body(json::parse(body)).error; }

TEST(SimRequestBody, ReadsTheFieldsAndTheirDefaults) {
  auto r = read_sim_body(json::parse(R"({"prompt":"x"})"));
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.request.stream);
  EXPECT_FALSE(r.request.include_usage);
  EXPECT_EQ(r.request.max_tokens, 16);
  r = read_sim_body(
      json::parse(R"({"prompt":"x","stream":true,"stream_options":{"include_usage":true},"max_tokens":3})"));
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.request.stream);
  EXPECT_TRUE(r.request.include_usage);
  EXPECT_EQ(r.request.max_tokens, 3);
  r = read_sim_body(json::parse(R"({"messages":[],"max_tokens":3,"max_completion_tokens":7})"));
  EXPECT_EQ(r.request.max_tokens, 7);
  r = read_sim_body(json::parse(R"({"prompt":"x","stream":null,"stream_options":null})"));
  EXPECT_EQ(r.error, "");
  EXPECT_FALSE(r.request.stream);
}

TEST(SimRequestBody, AWronglyTypedFieldIsAnErrorNamingIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"prompt":"x","max_tokens":3,"stream":1})", "stream must be true or false, not 1"},
      {R"({"prompt":"x","stream":"yes"})", "stream must be true or false"},
      {R"({"prompt":"x","max_tokens":"3"})", "max_tokens must be an integer of at least 1, not \"3\""},
      {R"({"prompt":"x","max_tokens":null})", "max_tokens must be an integer of at least 1, not null"},
      {R"({"prompt":"x","max_tokens":2.5})", "max_tokens must be an integer"},
      {R"({"prompt":"x","max_tokens":0})", "max_tokens must be an integer of at least 1, not 0"},
      {R"({"prompt":"x","max_tokens":18446744073709551615})", "max_tokens must be an integer"},
      {R"({"messages":[],"max_completion_tokens":[]})", "max_completion_tokens must be an integer"},
      {R"({"prompt":"x","stream":true,"stream_options":{"include_usage":"true"}})",
       "stream_options.include_usage must be true or false, not \"true\""},
      {R"({"prompt":"x","stream_options":[1]})", "stream_options must be an object"},
  };
  for (const auto& [body, expected] : cases) {
    const auto error = error_of(body);
    EXPECT_NE(error.find(expected), std::string::npos) << body << " -> " << error;
  }
  EXPECT_EQ(read_sim_body(json::array()).error, "the body is not a JSON object");
}

TEST(SimRequestBody, AHugeValueIsShortenedInTheError) {
  const auto error = error_of(R"({"prompt":"x","max_tokens":")" + std::string(100000, 'x') + R"("})");
  EXPECT_LT(error.size(), 120u) << error;
}

}  // namespace
}  // namespace ironbench::serve
