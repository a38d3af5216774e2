// core/redaction: secrets on the command line never recorded.
#include "core/redaction.hpp"

#include <gtest/gtest.h>

namespace ironbench::core {
namespace {

TEST(Redaction, URLsLoseTheirUserInformationOnly) {
  EXPECT_EQ(redact_url("http://user:pw@host:8000/v1"), "http://<redacted>@host:8000/v1");
  EXPECT_EQ(redact_url("https://token@api.example.com"), "https://<redacted>@api.example.com");
  EXPECT_EQ(redact_url("http://u:p%40ss@h"), "http://<redacted>@h");
  EXPECT_EQ(redact_url("http://u:p@ss@h/x@y"), "http://<redacted>@h/x@y");  // the last '@' before the path
  EXPECT_EQ(redact_url("http://host:8000/v1?user=a@b"), "http://host:8000/v1?user=a@b");
  EXPECT_EQ(redact_url("http://a:1@h1,http://b:2@h2"), "http://<redacted>@h1,http://<redacted>@h2");
  EXPECT_EQ(redact_url("mail me@example.com"), "mail me@example.com");
  EXPECT_EQ(redact_url(""), "");
}

TEST(Redaction, HeadersKeepTheirNameOnly) {
  EXPECT_EQ(redact_header("Authorization: Bearer sk-123"), "Authorization: <redacted>");
  EXPECT_EQ(redact_header("X-Api-Key:abc"), "X-Api-Key: <redacted>");
  EXPECT_EQ(redact_header("no colon at all"), "<redacted>");
}

TEST(Redaction, TheCommandLineHidesHeaderValuesAndURLPasswords) {
  const std::vector<std::string> argv = {"ironbench",
                                         "serve",
                                         "--header",
                                         "Authorization: Bearer sk-secret",
                                         "--header=X-Key: k-secret",
                                         "--base-url",
                                         "http://me:pw-secret@127.0.0.1:8000",
                                         "--tag",
                                         "env=vm"};
  const std::vector<std::string> expected = {"ironbench",
                                             "serve",
                                             "--header",
                                             "Authorization: <redacted>",
                                             "--header=X-Key: <redacted>",
                                             "--base-url",
                                             "http://<redacted>@127.0.0.1:8000",
                                             "--tag",
                                             "env=vm"};
  EXPECT_EQ(redact_command_line(argv), expected);
  EXPECT_EQ(redact_command_line({"ironbench", "--header"}), (std::vector<std::string>{"ironbench", "--header"}));
}

TEST(Redaction, SecretEnvironmentNames) {
  for (const char* name : {"HF_TOKEN", "OPENAI_API_KEY", "db_password", "AWS_SECRET_ACCESS_KEY", "MY_AUTH"}) {
    EXPECT_TRUE(names_a_secret(name)) << name;
  }
  for (const char* name : {"CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "OMP_NUM_THREADS", "PATH"}) {
    EXPECT_FALSE(names_a_secret(name)) << name;
  }
}

}  // namespace
}  // namespace ironbench::core
