// JSON documents as text, for every file, database row, request body and console line.
//
// Strings in a document may hold bytes that are not UTF-8: a --tag typed in another encoding,
// a directory name, a server's reply. nlohmann's plain dump() throws on them (type_error 316),
// which would lose a run already measured; json_text replaces each invalid byte with U+FFFD
// instead, so the text written is always valid JSON and valid UTF-8.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ironbench::core {

/// The document (ironbench::json or nlohmann::json) as JSON text: compact with indent -1 (the
/// default), else pretty-printed with `indent` spaces. Invalid UTF-8 in strings becomes U+FFFD;
/// never throws for that.
template <class Document>
[[nodiscard]] std::string json_text(const Document& document, int indent = -1) {
  return document.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace);
}

}  // namespace ironbench::core
