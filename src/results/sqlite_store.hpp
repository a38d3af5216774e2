// The SQLite back end of the results store: one database file.
//
// Layout (schema version 2; `PRAGMA user_version` holds the version, `PRAGMA application_id`
// marks the file as ironbench's, and opening an older database for writing migrates it in one
// transaction; reading leaves it as it is): the tables of results_store.hpp. The database runs
// in WAL mode; every save is one transaction (BEGIN IMMEDIATE), so a process killed while
// saving leaves the earlier runs intact, and several processes may save at once.
#pragma once

#include <memory>

#include "results/store_backend.hpp"

namespace ironbench::results {

/// Opens the SQLite file of `location` (see store_backend_opener).
[[nodiscard]] std::unique_ptr<store_backend> open_sqlite_store(const store_location& location, bool writing);

}  // namespace ironbench::results
