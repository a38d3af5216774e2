// Integration tests that run once per results store back end: an SQLite file and a fresh
// database on the PostgreSQL server of the ctest fixture postgres_server (skipped with the
// reason where there is none). A suite derives its fixture from store_backend_test and
// instantiates it with IRONBENCH_STORE_BACKENDS(Suite), which names its tests
// `Backends/Suite.Test/sqlite` and `Backends/Suite.Test/postgresql`. Header-only: compiled into
// the executables that also compile postgres_server.cpp.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>

#include "postgres_server.hpp"

namespace ironbench::testing {

enum class store_backend { sqlite, postgresql };

inline void PrintTo(store_backend b, std::ostream* out) {
  *out << (b == store_backend::sqlite ? "sqlite" : "postgresql");
}

/// The test name's suffix for a back end: "sqlite" or "postgresql".
inline std::string store_backend_name(const ::testing::TestParamInfo<store_backend>& info) {
  return info.param == store_backend::sqlite ? "sqlite" : "postgresql";
}

class store_backend_test : public ::testing::TestWithParam<store_backend> {
 protected:
  void SetUp() override {
    if (!postgresql()) return;
    std::string reason;
    server_ = find_postgres_server(reason);
    if (!server_) GTEST_SKIP() << reason;
    ASSERT_FALSE(server_->password.empty());
  }

  [[nodiscard]] bool sqlite() const { return GetParam() == store_backend::sqlite; }
  [[nodiscard]] bool postgresql() const { return GetParam() == store_backend::postgresql; }

  /// A store with no database in it yet, for --db: on SQLite `file` (not created), on
  /// PostgreSQL a new empty database on the server, named after `name`.
  [[nodiscard]] std::string fresh_store(const std::string& file, const std::string& name) const {
    return sqlite() ? file : fresh_postgres_database(*server_, name);
  }

  /// How ironbench names the store `db` in what it prints: the file's path, or the URL with
  /// the server's password replaced by "***".
  [[nodiscard]] std::string shown(const std::string& db) const {
    if (sqlite()) return db;
    const auto secret = ":" + server_->password + "@";
    const auto at = db.find(secret);
    EXPECT_NE(at, std::string::npos) << "the fixture's URL carries its password";
    if (at == std::string::npos) return db;
    return db.substr(0, at) + ":***@" + db.substr(at + secret.size());
  }

  /// The number of tables in the store `db` (0 where nothing was ever written there).
  [[nodiscard]] std::size_t postgres_tables(const std::string& db) const {
    return std::stoul(
        postgres_value(db, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"));
  }

  /// A digest of every row of every table of the PostgreSQL store `db`: equal while nothing
  /// writes to it.
  [[nodiscard]] std::string postgres_contents(const std::string& db) const {
    std::string digest;
    for (const char* table : {"runs", "run_tags", "cases", "ironbench_schema"}) {
      digest +=
          postgres_value(db, std::string("SELECT count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY "
                                         "t::text)), '') FROM ") +
                                 table + " t") +
          ";";
    }
    return digest;
  }

  std::optional<postgres_server> server_;
};

}  // namespace ironbench::testing

/// Runs every TEST_P of `suite` on both back ends.
#define IRONBENCH_STORE_BACKENDS(suite)                                                                                \
  INSTANTIATE_TEST_SUITE_P(                                                                                            \
      Backends, suite,                                                                                                 \
      ::testing::Values(::ironbench::testing::store_backend::sqlite, ::ironbench::testing::store_backend::postgresql), \
      ::ironbench::testing::store_backend_name)
