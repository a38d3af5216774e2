#include "postgres_server.hpp"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "results/postgres_database.hpp"

namespace ironbench::testing {
namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::optional<postgres_server> find_postgres_server(std::string& reason) {
  if (!results::have_postgresql()) {
    reason = "this build has no libpq (install libpq-dev and reconfigure)";
    return std::nullopt;
  }
  if (const char* url = std::getenv("IRONBENCH_TEST_POSTGRES_URL"); url != nullptr && *url != '\0') {
    const std::string text = url;
    const auto at = text.rfind('@');
    const auto colon = text.find(':', text.find("://") + 3);
    return postgres_server{text, at != std::string::npos && colon < at ? text.substr(colon + 1, at - colon - 1) : ""};
  }
  const std::string dir = IRONBENCH_POSTGRES_FIXTURE;
  if (const auto skip = first_line(dir + "/skip"); !skip.empty()) {
    reason = skip;
    return std::nullopt;
  }
  const auto url = first_line(dir + "/url");
  if (url.empty()) {
    reason =
        "no PostgreSQL server: the ctest fixture PostgresServerStart starts one (run through ctest, or set "
        "IRONBENCH_TEST_POSTGRES_URL)";
    return std::nullopt;
  }
  return postgres_server{url, first_line(dir + "/password")};
}

std::string with_database(const std::string& url, const std::string& database) {
  const auto slash = url.find('/', url.find("://") + 3);
  const auto query = url.find('?', slash);
  return url.substr(0, slash) + "/" + database + (query == std::string::npos ? "" : url.substr(query));
}

std::string fresh_postgres_database(const postgres_server& server, const std::string& name) {
  static std::atomic<int> counter{0};
  std::string database = "ib_";
  for (const char c : name)
    database += std::isalnum(static_cast<unsigned char>(c)) != 0 ? static_cast<char>(std::tolower(c)) : '_';
  database = database.substr(0, 40) + "_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  postgres_execute(server.url, "CREATE DATABASE " + database);
  return with_database(server.url, database);
}

void postgres_execute(const std::string& url, const std::string& sql) {
  results::postgres_database db(url, "test server");
  db.execute(sql);
}

std::string postgres_value(const std::string& url, const std::string& sql) {
  results::postgres_database db(url, "test server");
  const auto result = db.query(sql);
  return result.rows() > 0 ? result.text(0, 0) : "";
}

}  // namespace ironbench::testing
