// A run's identity across stores: the `uuid` of its JSON document and of its row in every
// results database it is imported into, so that a run gathered twice is stored once.
//
// A run measured by this build gets a random UUID (RFC 9562 version 4) when it is first
// written. A run written before uuids existed (an older JSON file, an older database row) gets
// one derived from its content: the SHA-256 of its document written compactly, keys in their
// order, without a `uuid` key, whose first 16 bytes form a UUID of version 8 (RFC 9562's
// custom kind). The same document gives the same uuid on every machine, so an old run's file
// and its row in an old database are recognized as one run.
#pragma once

#include <string>

#include "core/json.hpp"

namespace ironbench::results {

/// A fresh random uuid, "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx" (V one of 8, 9, a, b).
[[nodiscard]] std::string new_run_uuid();

/// The uuid derived from `document` (a run's JSON) as above; `salt` (empty by default) is
/// appended to the hashed text to tell apart rows of one database with equal documents.
[[nodiscard]] std::string derived_run_uuid(const json& document, const std::string& salt = "");

/// Whether `text` is a uuid in the canonical 8-4-4-4-12 form, lowercase hex.
[[nodiscard]] bool is_run_uuid(const std::string& text);

/// The document's `uuid` when it holds one, else derived_run_uuid(document). Throws
/// usage_error naming `context` when it holds a `uuid` that is not one.
[[nodiscard]] std::string run_uuid_of(const json& document, const std::string& context);

}  // namespace ironbench::results
