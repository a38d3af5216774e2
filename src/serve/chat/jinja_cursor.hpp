// The Jinja parser's reading position in a template's tokens (serve/chat/jinja_parser.cpp):
// looking ahead, taking what is expected, one-line errors naming the line, and the AST nodes it
// builds, each counted against the bound of parts in one tag (so that a template of 20,000 "("
// or "+ 1" is an error, not a stack overflow in the parser or in the renderer that walks it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "serve/chat/jinja_ast.hpp"
#include "serve/chat/jinja_lexer.hpp"

namespace ironbench::serve::chat {

class jinja_cursor {
 public:
  /// `tokens` end with a token of kind end (lex_jinja's).
  explicit jinja_cursor(std::vector<jinja_token> tokens) : tokens_(std::move(tokens)) {}

  /// Expression parts allowed in one tag; real chat templates use tens.
  static constexpr int max_tag_parts = 1000;

 protected:
  /// The token `ahead` places on (the end token past the end).
  [[nodiscard]] const jinja_token& peek(std::size_t ahead = 0) const;
  /// The current token, then moves past it (never past the end token).
  const jinja_token& next();
  /// Moves back one token (after an accept_* that took one to look at).
  void step_back() { --pos_; }
  /// Moves past `count` tokens already looked at with peek.
  void skip(std::size_t count) { pos_ += count; }
  [[nodiscard]] bool peek_op(const char* op) const;
  /// Takes the operator `op` (or the name `name`) if it is next.
  bool accept_op(const char* op);
  bool accept_name(const char* name);
  /// Takes what must come next, or fails naming what came instead.
  void expect_op(const char* op);
  const jinja_token& expect(jinja_token::kind type, const std::string& what);
  /// " before %}", " at the end of the template", ", not 'x'": what came instead.
  [[nodiscard]] std::string found_text() const;
  /// An integer token's value; one past int64 fails.
  static std::int64_t integer_of(const jinja_token& t);
  /// A new tag: its parts are counted from 0.
  void start_tag() { tag_parts_ = 0; }
  /// One more node or nesting level in the current tag's expressions (fails past the bound).
  void count_part();
  [[noreturn]] static void fail(int line, const std::string& what);

  /// AST nodes: each expression node counts as a part.
  jinja_expr_ptr make_expr(jinja_expr::kind kind, int line);
  static jinja_node_ptr make_node(jinja_node::kind kind, int line);
  jinja_expr_ptr literal(jinja_value value, int line);
  jinja_expr_ptr binary(jinja_expr::kind kind, const std::string& op, jinja_expr_ptr left, jinja_expr_ptr right);
  /// A deep copy of `e`.
  jinja_expr_ptr clone(const jinja_expr& e);

 private:
  std::vector<jinja_token> tokens_;
  std::size_t pos_ = 0;
  int tag_parts_ = 0;
};

}  // namespace ironbench::serve::chat
