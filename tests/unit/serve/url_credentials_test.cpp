// serve/client/url_credentials: a password in --base-url becomes a Basic Authorization header.
#include "serve/client/url_credentials.hpp"
#include "serve/common/base64.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace ironbench::serve {
namespace {

TEST(UrlCredentials, Base64OfTheStandardsVectors) {  // RFC 4648, section 10
  EXPECT_EQ(base64_encoded(""), "");
  EXPECT_EQ(base64_encoded("f"), "Zg==");
  EXPECT_EQ(base64_encoded("fo"), "Zm8=");
  EXPECT_EQ(base64_encoded("foo"), "Zm9v");
  EXPECT_EQ(base64_encoded("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encoded("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encoded("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encoded("\xff\xfe"), "//4=");
}

TEST(UrlCredentials, TakenOutOfTheURLsIntoOneHeader) {
  std::vector<std::string> urls = {"http://Aladdin:open%20sesame@127.0.0.1:8000/v1",
                                   "https://Aladdin:open%20sesame@host"};
  const auto header = take_url_credentials(urls);
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(*header, "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");  // RFC 7617's example
  EXPECT_EQ(urls, (std::vector<std::string>{"http://127.0.0.1:8000/v1", "https://host"}));
}

TEST(UrlCredentials, AUserWithoutPasswordAndNoCredentials) {
  std::vector<std::string> token = {"http://tok@h"};
  EXPECT_EQ(take_url_credentials(token).value_or(""), "Authorization: Basic " + base64_encoded("tok:"));
  EXPECT_EQ(token.front(), "http://h");
  std::vector<std::string> plain = {"http://h:1/x@y"};
  EXPECT_FALSE(take_url_credentials(plain).has_value());
  EXPECT_EQ(plain.front(), "http://h:1/x@y");
}

TEST(UrlCredentials, DifferentCredentialsAreRefused) {
  std::vector<std::string> two = {"http://a:1@h1", "http://b:2@h2"};
  EXPECT_THROW((void)take_url_credentials(two), usage_error);
  std::vector<std::string> some = {"http://a:1@h1", "http://h2"};
  try {
    (void)take_url_credentials(some);
    FAIL() << "accepted credentials for one endpoint of two";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()).find("a:1"), std::string::npos) << "the message repeats the password";
  }
}

}  // namespace
}  // namespace ironbench::serve
