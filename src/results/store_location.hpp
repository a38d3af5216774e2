// Where a results store lives, as given to --db or $IRONBENCH_DB: an SQLite file (any path,
// the default) or a PostgreSQL server (postgresql://… or postgres://…, libpq's URL form).
//
// A password in a URL (`postgresql://user:secret@host/db`, `?password=secret`,
// `&sslpassword=…`) is needed to connect but must never be printed or stored: display() gives
// the location with every secret replaced by `***` (core::secret_spans), and is what every
// message, listing and run document names. A URL libpq would refuse or read other than it
// looks is refused here, before libpq sees it (libpq quotes a URL it cannot parse, password
// included, in its message).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ironbench::results {

/// The kinds of store a location may name (the rows of the back-end table, results_store.cpp).
enum class store_kind {
  sqlite,      ///< a file, opened with SQLite
  postgresql,  ///< a server, reached with libpq
};

class store_location {
 public:
  store_location() = default;
  /// Parses `text`: a postgresql:// or postgres:// URL (any case) names a server (libpq's
  /// defaults and PG* variables fill in what it leaves out), another URL ("mysql://…") is a
  /// usage_error, anything else a file. A PostgreSQL URL that libpq would refuse or misread is
  /// a usage_error naming it by display(): a '%' not followed by two hexadecimal digits, an
  /// '@' anywhere but right before the host (a '/' or '@' in a password must be %2F or %40), an
  /// unclosed '[' of an IPv6 address, a port that is not a number, a query parameter that is
  /// not one NAME=VALUE. Implicit, so that a file path is a location.
  store_location(std::string_view text);              // NOLINT(google-explicit-constructor)
  store_location(const std::filesystem::path& file);  // NOLINT(google-explicit-constructor)
  store_location(const std::string& text) : store_location(std::string_view(text)) {}  // NOLINT
  store_location(const char* text) : store_location(std::string_view(text)) {}         // NOLINT

  [[nodiscard]] store_kind kind() const { return kind_; }
  /// The SQLite file (only for store_kind::sqlite).
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  /// The URL with its password and its scheme in lower case, for libpq only: never print it.
  [[nodiscard]] const std::string& connection_url() const { return url_; }
  /// The location as it may be shown or stored: the file's path, or the URL with any password
  /// replaced by "***".
  [[nodiscard]] const std::string& display() const { return display_; }
  /// display(), so that code naming a store in a message reads `store.path().string()`.
  [[nodiscard]] const std::string& string() const { return display_; }

 private:
  store_kind kind_ = store_kind::sqlite;
  std::filesystem::path file_;
  std::string url_;
  std::string display_;
};

/// Whether `text` starts with a PostgreSQL URL's scheme (postgresql:// or postgres://, any case).
[[nodiscard]] bool is_postgresql_url(std::string_view text);

/// `url` with the password of its user information and every secret query parameter
/// (`password`, `sslpassword`, `oauth_client_secret`, core::is_secret_key) replaced by "***"
/// (postgresql://user:***@host/db?password=***): core::redact_secrets keeping the user name.
/// Text without one is returned as it is.
[[nodiscard]] std::string redact_store_url(std::string_view url);

}  // namespace ironbench::results
