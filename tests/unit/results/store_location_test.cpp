// --db values: SQLite paths, PostgreSQL URLs, and passwords kept out of what is shown.
#include "results/store_location.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "results/results_store.hpp"

namespace ironbench::results {
namespace {

TEST(StoreLocation, PathsAreSqliteFiles) {
  for (const char* text : {"results.db", "/var/lib/ironbench/results.db", "dir/with:colon.db", "./postgresql"}) {
    const store_location location(text);
    EXPECT_EQ(location.kind(), store_kind::sqlite) << text;
    EXPECT_EQ(location.file(), std::filesystem::path(text));
    EXPECT_EQ(location.display(), text);
  }
}

TEST(StoreLocation, PostgresqlUrlsAreServersWithThePasswordHidden) {
  const store_location plain("postgresql://bench@db.example:5433/results");
  EXPECT_EQ(plain.kind(), store_kind::postgresql);
  EXPECT_EQ(plain.display(), "postgresql://bench@db.example:5433/results");
  EXPECT_EQ(plain.connection_url(), "postgresql://bench@db.example:5433/results");

  const store_location secret("postgres://bench:pa%40ss:word@db.example/results?sslmode=require");
  EXPECT_EQ(secret.kind(), store_kind::postgresql);
  EXPECT_EQ(secret.display(), "postgres://bench:***@db.example/results?sslmode=require");
  EXPECT_EQ(secret.string(), secret.display());
  EXPECT_EQ(secret.connection_url(), "postgres://bench:pa%40ss:word@db.example/results?sslmode=require");

  EXPECT_EQ(store_location("POSTGRESQL://h/db").kind(), store_kind::postgresql);
  EXPECT_EQ(store_location("postgresql:///results").kind(), store_kind::postgresql);  // libpq's defaults
}

TEST(StoreLocation, RedactsEveryPasswordForm) {
  EXPECT_EQ(redact_store_url("postgresql://u:p@h/db"), "postgresql://u:***@h/db");
  EXPECT_EQ(redact_store_url("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(redact_store_url("postgresql://h/db?user=u&password=p&sslmode=require"),
            "postgresql://h/db?user=u&password=***&sslmode=require");
  EXPECT_EQ(redact_store_url("postgresql://u:p@h/db?PASSWORD=q"), "postgresql://u:***@h/db?PASSWORD=***");
  EXPECT_EQ(redact_store_url("postgresql://u:p@h1:5432,h2:5433/db"), "postgresql://u:***@h1:5432,h2:5433/db");
  // libpq reads '#' as part of the database name, not as a fragment: hidden all the same.
  EXPECT_EQ(redact_store_url("postgresql://u:p@h/db#password=x"), "postgresql://u:***@h/db#password=***");
  EXPECT_EQ(redact_store_url("postgresql://u@h/db?sslpassword=k&oauth_client_secret=c"),
            "postgresql://u@h/db?sslpassword=***&oauth_client_secret=***");
  EXPECT_EQ(redact_store_url("postgresql://u:pa/ss@h/db"), "postgresql://u:***@h/db");
  EXPECT_EQ(redact_store_url("postgresql://u:p@[::1]:5432/db"), "postgresql://u:***@[::1]:5432/db");
  EXPECT_EQ(redact_store_url("results.db"), "results.db");
}

// libpq knows its schemes in lower case only: "POSTGRESQL://u@h/db" would be a database name
// on its default server, the host ignored, the URL (password included) quoted in its message.
TEST(StoreLocation, AnUpperCaseSchemeReachesLibpqInLowerCase) {
  const store_location upper("POSTGRESQL://bench:pw@db.example:5433/results?sslmode=require");
  EXPECT_EQ(upper.kind(), store_kind::postgresql);
  EXPECT_EQ(upper.connection_url(), "postgresql://bench:pw@db.example:5433/results?sslmode=require");
  EXPECT_EQ(upper.display(), "POSTGRESQL://bench:***@db.example:5433/results?sslmode=require");
  EXPECT_EQ(store_location("Postgres://h/db").connection_url(), "postgres://h/db");
}

// A URL libpq cannot parse is refused before libpq quotes it: one line, no secret.
TEST(StoreLocation, AUrlLibpqWouldRefuseOrMisreadIsRefusedWithoutItsSecrets) {
  for (const auto& [url, why] : std::vector<std::pair<std::string, std::string>>{
           {"postgresql://bench:Pw%ZZsecret@127.0.0.1:54329/ib", "'%' not followed by two hexadecimal digits"},
           {"postgresql://bench:Pw%00secret@127.0.0.1/ib", "(or %00)"},
           {"postgresql://bench:secret@[::1", "no closing ']'"},
           {"postgresql://bench:secret@[]:5432/ib", "is empty"},
           {"postgresql://bench:secret@[::1]x/ib", "followed by something other than"},
           {"postgresql://bench:se/cret@127.0.0.1/ib", "a '/' is written %2F"},
           {"postgresql://bench:se@cret@127.0.0.1/ib", "an '@' %40"},
           {"postgresql://bench:secret@127.0.0.1:port/ib", "port is not a number"},
           {"postgresql://bench:secret@127.0.0.1:99999/ib", "port is not a number"},
           {"postgresql://h/ib?password=se=cret", "not one NAME=VALUE"},
           {"postgresql://h/ib?password=secret&&sslmode=disable", "not one NAME=VALUE"},
           {"postgresql://h/ib?password=secret&Bad%20Name=x", "name is not one of libpq's"},
           {"postgresql://h/ib?password=Pw%ZZsecret", "'%' not followed by two hexadecimal digits"},
           {"postgresql://h/ib%ZZ?password=secret", "database name has a '%'"},
       }) {
    try {
      (void)store_location(url);
      ADD_FAILURE() << url << " was taken";
    } catch (const usage_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(why), std::string::npos) << message;
      EXPECT_EQ(message.find("cret"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
  // What libpq reads as written is taken: several hosts, IPv6, an empty port, a trailing '&'.
  for (const char* url :
       {"postgresql://u:p%40ss%2Fw@[::1]:5432,h2:5433,h3/db?sslmode=require&", "postgresql://u:p?x#y@h/db",
        "postgresql://h:/db?", "postgresql:///db", "postgresql://u:pw@h/d%40b?application_name=a%40b"}) {
    EXPECT_EQ(store_location(url).kind(), store_kind::postgresql) << url;
  }
}

TEST(StoreLocation, OtherUrlsAreRefusedWithoutTheirPassword) {
  try {
    (void)store_location("mysql://root:hunter2@db/results");
    ADD_FAILURE() << "a MySQL URL was taken for a file";
  } catch (const usage_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("mysql://root:***@db/results"), std::string::npos) << message;
    EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
    EXPECT_NE(message.find("postgresql://"), std::string::npos) << message;
  }
}

TEST(StoreLocation, TheEnvironmentNamesAServer) {
  ::setenv("IRONBENCH_DB", "postgresql://bench:pw@db/results", 1);
  EXPECT_EQ(database_path("").kind(), store_kind::postgresql);
  EXPECT_EQ(database_path("").display(), "postgresql://bench:***@db/results");
  EXPECT_EQ(database_path("local.db").kind(), store_kind::sqlite);  // --db wins
  ::unsetenv("IRONBENCH_DB");
  EXPECT_EQ(database_path("").kind(), store_kind::sqlite);
}

}  // namespace
}  // namespace ironbench::results
