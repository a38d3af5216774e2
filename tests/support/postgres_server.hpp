// The PostgreSQL server of the tests (tests/postgres/server.sh, started by the ctest fixture
// postgres_server): where it listens, its password, and fresh databases on it for one test each.
// Compiled into the test executables that use it, with IRONBENCH_POSTGRES_FIXTURE naming the
// fixture's folder; they link ironbench_results (its libpq connection).
#pragma once

#include <optional>
#include <string>

namespace ironbench::testing {

struct postgres_server {
  std::string url;       ///< postgresql://USER:PASSWORD@127.0.0.1:PORT/postgres
  std::string password;  ///< the user's password, for checking that nothing writes it down
};

/// The server: $IRONBENCH_TEST_POSTGRES_URL where set (password in the URL), else the fixture's.
/// nullopt with `reason` set where there is none (the fixture found no PostgreSQL programs,
/// this build has no libpq, or the test runs outside ctest).
[[nodiscard]] std::optional<postgres_server> find_postgres_server(std::string& reason);

/// A new empty database on `server`, named after `name`, this process and a counter; its URL.
[[nodiscard]] std::string fresh_postgres_database(const postgres_server& server, const std::string& name);

/// Runs `sql` (statements without parameters) on the database at `url`.
void postgres_execute(const std::string& url, const std::string& sql);

/// The first column of the first row `sql` returns on the database at `url` ("" when none).
[[nodiscard]] std::string postgres_value(const std::string& url, const std::string& sql);

/// `url` with its database replaced by `database`.
[[nodiscard]] std::string with_database(const std::string& url, const std::string& database);

}  // namespace ironbench::testing
