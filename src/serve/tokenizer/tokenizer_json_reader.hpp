// Reading a Hugging Face tokenizer.json into the tokenizer's parts: the model (BPE or
// Unigram), the normalizers and the pre-tokenizers. What is not supported is refused in one
// line naming the file and the part, never approximated; a value of the wrong type deep in the
// file is a malformed tokenizer (nlohmann's exception, which the caller turns into one line).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "serve/tokenizer/bpe_model.hpp"
#include "serve/tokenizer/normalizers.hpp"
#include "serve/tokenizer/pre_tokenizer.hpp"
#include "serve/tokenizer/unigram_model.hpp"

namespace ironbench::serve::tokenization {

/// tokenizer.json is read into an unordered document: an ordered one looks keys up one by one,
/// and a vocabulary has up to 262,144 of them (Gemma's), which would take minutes to read.
using tokenizer_json = nlohmann::json;

/// The member `key` of `object`, or null where it has none (a reference: a vocabulary is not copied).
const tokenizer_json& member(const tokenizer_json& object, const char* key);

/// An item's "type" ("?" without one); an item that is no object is a malformed tokenizer
/// (nlohmann's type error).
std::string type_of(const tokenizer_json& item);

/// nlohmann's message without its "[json.exception.type_error.302] " prefix.
std::string json_error_text(const tokenizer_json::exception& e);

/// A token id: a JSON integer from 0 to 2^32 - 1, as Hugging Face's tokenizers (u32) read it
/// (nlohmann's get<> would convert 6e19 or 1.5; a negative id would reach the encoded text).
std::int64_t token_id_of(const tokenizer_json& id, const std::string& path);

/// The refusal of a part that is not supported (`what`), naming the file.
usage_error unsupported(const std::string& path, const std::string& what);

/// Appends the normalizers of `item` (one, or a Sequence; null: none) to `normalizers`.
void add_normalizer(const tokenizer_json& item, std::vector<std::unique_ptr<normalizer>>& normalizers,
                    const std::string& path);

/// One pre-tokenizer (not a Sequence).
pre_tokenizer read_pre_tokenizer(const tokenizer_json& item, const std::string& path);

/// The model of type BPE.
bpe_model read_bpe(const tokenizer_json& model, const std::string& path);

/// The model of type Unigram.
unigram_model read_unigram(const tokenizer_json& model, const std::string& path);

}  // namespace ironbench::serve::tokenization
