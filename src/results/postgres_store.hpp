// The PostgreSQL back end of the results store: the tables of results_store.hpp in one
// database of a server many nodes write to at once, through libpq.
//
// Dialect: ids are BIGINT identity columns (SQLite's INTEGER PRIMARY KEY AUTOINCREMENT), every
// text column compares bytewise (COLLATE "C", as SQLite does, so dates and '~' order alike),
// the schema version sits in a table of its own, ironbench_schema(application, version)
// (SQLite's PRAGMA user_version). Creating or migrating the tables happens in one transaction
// under an advisory lock, so writers opening a new database at once create it once. A run is
// inserted in one transaction with ON CONFLICT (uuid) DO NOTHING: two nodes importing the same
// run store it once; a connection lost mid-write leaves nothing of the run (the server rolls
// the transaction back).
#pragma once

#include <memory>

#include "results/store_backend.hpp"

namespace ironbench::results {

/// Connects to the server of `location` (see store_backend_opener).
[[nodiscard]] std::unique_ptr<store_backend> open_postgres_store(const store_location& location, bool writing);

}  // namespace ironbench::results
