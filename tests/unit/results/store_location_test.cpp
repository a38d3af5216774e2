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
  EXPECT_EQ(redact_store_url("postgresql://u:p@h/db#password=x"), "postgresql://u:***@h/db#password=x");
  EXPECT_EQ(redact_store_url("postgresql://u:p@[::1]:5432/db"), "postgresql://u:***@[::1]:5432/db");
  EXPECT_EQ(redact_store_url("results.db"), "results.db");
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
