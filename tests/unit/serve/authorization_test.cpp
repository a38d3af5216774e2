// One Authorization header is sent: --header's, else the --base-url's user and password, else
// the API key from the environment.
#include "serve/client/authorization.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace ironbench::serve {
namespace {

constexpr const char* key_variable = "IRONBENCH_TEST_AUTHORIZATION_KEY";

int authorization_headers(const std::vector<std::string>& headers) {
  int n = 0;
  for (const auto& h : headers) n += is_authorization_header(h) ? 1 : 0;
  return n;
}

TEST(Authorization, AnExplicitHeaderWinsOverTheUrlAndTheEnvironment) {
  setenv(key_variable, "from-env", 1);
  for (const std::string header : {"Authorization: Bearer X", "authorization:Bearer X", "AUTHORIZATION : Bearer X"}) {
    std::vector<std::string> headers = {"X-Trace: 1", header};
    EXPECT_EQ(choose_authorization(headers, std::string("Authorization: Basic dTpw"), key_variable), "--header");
    EXPECT_EQ(headers, (std::vector<std::string>{"X-Trace: 1", header}));
  }
  std::vector<std::string> headers = {"X-Trace: 1"};
  EXPECT_EQ(choose_authorization(headers, std::string("Authorization: Basic dTpw"), key_variable),
            "user and password in --base-url");
  EXPECT_EQ(headers.back(), "Authorization: Basic dTpw");
  EXPECT_EQ(authorization_headers(headers), 1);
  headers = {};
  EXPECT_EQ(choose_authorization(headers, std::nullopt, key_variable), std::string("API key from $") + key_variable);
  EXPECT_EQ(headers, (std::vector<std::string>{"Authorization: Bearer from-env"}));
  unsetenv(key_variable);
  headers = {};
  EXPECT_EQ(choose_authorization(headers, std::nullopt, key_variable), "none");
  EXPECT_TRUE(headers.empty());
  setenv(key_variable, "", 1);
  EXPECT_EQ(choose_authorization(headers, std::nullopt, key_variable), "none");
  unsetenv(key_variable);
}

TEST(Authorization, OnlyTheNameMakesAnAuthorizationHeader) {
  EXPECT_TRUE(is_authorization_header("Authorization: Basic x"));
  EXPECT_FALSE(is_authorization_header("X-Authorization: x"));
  EXPECT_FALSE(is_authorization_header("Proxy-Authorization: x"));
  EXPECT_FALSE(is_authorization_header("X-Note: Authorization: x"));
  EXPECT_FALSE(is_authorization_header("Authorization"));
}

}  // namespace
}  // namespace ironbench::serve
