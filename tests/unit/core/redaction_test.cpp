// core/redaction: secrets on the command line never recorded.
#include "core/redaction.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace ironbench::core {
namespace {

TEST(Redaction, URLsLoseTheirUserInformation) {
  EXPECT_EQ(redact_url("http://user:pw@host:8000/v1"), "http://<redacted>@host:8000/v1");
  EXPECT_EQ(redact_url("https://token@api.example.com"), "https://<redacted>@api.example.com");
  EXPECT_EQ(redact_url("http://u:p%40ss@h"), "http://<redacted>@h");
  EXPECT_EQ(redact_url("http://host:8000/v1?user=ab"), "http://host:8000/v1?user=ab");
  EXPECT_EQ(redact_url("mail me@example.com"), "mail me@example.com");
  EXPECT_EQ(redact_url(""), "");
  // Everything up to the last '@' of the text: a password may hold '/', '@', '?', '#', ',' or
  // "://" unencoded (the user meant it, whatever a URL parser makes of it), so what may be a
  // password is hidden whole; an '@' in a path, a query or a second URL of a list hides more.
  EXPECT_EQ(redact_url("http://u:p@ss@h/x@y"), "http://<redacted>@y");
  EXPECT_EQ(redact_url("http://host:8000/v1?user=a@b"), "http://<redacted>@b");
  EXPECT_EQ(redact_url("http://a:1@h1,http://b:2@h2"), "http://<redacted>@h2");
  EXPECT_EQ(redact_url("postgresql://bench:pa/ss@db/ib"), "postgresql://<redacted>@db/ib");
  EXPECT_EQ(redact_url("postgresql://bench:p?x#y@db/ib"), "postgresql://<redacted>@db/ib");
  EXPECT_EQ(redact_url("POSTGRESQL://bench:a://b,c@db/ib"), "POSTGRESQL://<redacted>@db/ib");
}

TEST(Redaction, EverySecretSettingOfAConnectionStringIsHidden) {
  // The query parameters libpq reads a secret from (keys percent-decoded, any case).
  EXPECT_EQ(redact_url("postgresql://127.0.0.1:54329/ib?password=s3cret"),
            "postgresql://127.0.0.1:54329/ib?password=<redacted>");
  EXPECT_EQ(redact_url("postgresql://bench@127.0.0.1:54329/ib?password=s3cret"),
            "postgresql://<redacted>@127.0.0.1:54329/ib?password=<redacted>");
  EXPECT_EQ(redact_url("postgresql://h/ib?sslmode=require&sslpassword=k3y&user=u"),
            "postgresql://h/ib?sslmode=require&sslpassword=<redacted>&user=u");
  EXPECT_EQ(redact_url("postgresql://h/ib?oauth_client_secret=c&PASSWORD=p&pass%77ord=q"),
            "postgresql://h/ib?oauth_client_secret=<redacted>&PASSWORD=<redacted>&pass%77ord=<redacted>");
  // libpq splits a query at '&' only: '#' and spaces are part of a value, and an '&' that does
  // not start another NAME= may be part of it too.
  EXPECT_EQ(redact_url("postgresql://h/ib?password=a#b c&sslmode=disable"),
            "postgresql://h/ib?password=<redacted>&sslmode=disable");
  EXPECT_EQ(redact_url("postgresql://h/ib?password=a&b"), "postgresql://h/ib?password=<redacted>");
  // libpq's key=value connection strings: spaces around '=', quoted values with escapes.
  EXPECT_EQ(redact_url("host=h password='a b\\' c' port=5432"), "host=h password=<redacted> port=5432");
  EXPECT_EQ(redact_url("dbname=ib password = x user=u"), "dbname=ib password =<redacted> user=u");
  EXPECT_EQ(redact_url("--set=hf_token=hf_abc"), "--set=hf_token=<redacted>");
  // Names that only look like one are kept.
  EXPECT_EQ(redact_url("tokenizer=gpt2 author=me sslkey=/k.pem"), "tokenizer=gpt2 author=me sslkey=/k.pem");
  // keep_user: a database role is shown, its password is not.
  EXPECT_EQ(redact_secrets("postgresql://bench:pa/ss@db/ib?sslpassword=k", user_information::keep_user, "***"),
            "postgresql://bench:***@db/ib?sslpassword=***");
  EXPECT_EQ(redact_secrets("postgresql://bench@db/ib", user_information::keep_user, "***"), "postgresql://bench@db/ib");
}

TEST(Redaction, SecretSpansCoverEveryByteOfTheSecret) {
  const std::string text = "postgresql://u:pw@h/db?password=q&x=1";
  const auto spans = secret_spans(text);
  ASSERT_EQ(spans.size(), 2U);
  EXPECT_EQ(text.substr(spans[0].begin, spans[0].end - spans[0].begin), "u:pw");
  EXPECT_EQ(text.substr(spans[1].begin, spans[1].end - spans[1].begin), "q");
  EXPECT_EQ(connection_secrets("postgresql://u:p%41ss@h/db", user_information::keep_user),
            (std::vector<std::string>{"p%41ss", "pAss"}));
}

// libpq quotes a URL it cannot parse, or a token of it, in its message: the same redaction
// with the secrets it was given hides them.
TEST(Redaction, ALibrarysMessageLosesTheSecretsItWasGiven) {
  const auto secrets = connection_secrets("postgresql://bench:Pw%ZZsecret@h/ib", user_information::keep_user);
  const auto message = redact_message("invalid percent-encoded token: \"Pw%ZZsecret\"", secrets, "***");
  EXPECT_EQ(message, "invalid percent-encoded token: \"***\"");
  EXPECT_EQ(redact_message("end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
                           "\"postgresql://bench:s3cret@[::1\"",
                           {}, "***"),
            "end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
            "\"postgresql://***@[::1\"");
  EXPECT_EQ(redact_message("FATAL: password authentication failed for user \"bench\"", {"hunter2"}, "***"),
            "FATAL: password authentication failed for user \"bench\"");
  // A user name holding `token=` makes one merged span of that value and the password: the
  // password alone, which libpq quotes, is among the secrets too (the url_redaction fuzzer's
  // finding).
  const auto merged = connection_secrets("postgresql://dtoken=b//h/x:p%ZZ=b://4:30/ib@b", user_information::keep_user);
  EXPECT_NE(std::find(merged.begin(), merged.end(), "p%ZZ=b://4:30/ib"), merged.end());
  EXPECT_EQ(redact_message("invalid percent-encoded token: \"p%ZZ=b://4:30/ib\"", merged, "***"),
            "invalid percent-encoded token: \"***\"");
}

TEST(Redaction, HeadersKeepTheirNameOnly) {
  EXPECT_EQ(redact_header("Authorization: Bearer sk-123"), "Authorization: <redacted>");
  EXPECT_EQ(redact_header("X-Api-Key:abc"), "X-Api-Key: <redacted>");
  EXPECT_EQ(redact_header("no colon at all"), "<redacted>");
  // Text before the colon that is no field name is not shown either (the url_redaction
  // fuzzer's finding: a quoted password before a later ':').
  EXPECT_EQ(redact_header("X passwd='u@h' y: z"), "<redacted>");
  EXPECT_EQ(redact_header("password=pw: z"), "<redacted>");
  EXPECT_EQ(redact_header(": value"), "<redacted>");
  EXPECT_EQ(redact_header("X-Custom_Header.1~: v"), "X-Custom_Header.1~: <redacted>");
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
  EXPECT_EQ(
      redact_command_line({"ironbench", "--db", "postgresql://bench@127.0.0.1:54329/ib?password=pw-secret",
                           "--db=postgres://h/ib?sslpassword=k-secret"}),
      (std::vector<std::string>{"ironbench", "--db", "postgresql://<redacted>@127.0.0.1:54329/ib?password=<redacted>",
                                "--db=postgres://h/ib?sslpassword=<redacted>"}));
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
