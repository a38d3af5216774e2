#include "serve/chat/jinja_cursor.hpp"

#include <algorithm>
#include <stdexcept>

namespace ironbench::serve::chat {

const jinja_token& jinja_cursor::peek(std::size_t ahead) const {
  const auto i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

const jinja_token& jinja_cursor::next() {
  const jinja_token& t = peek();
  if (pos_ < tokens_.size() - 1) ++pos_;
  return t;
}

bool jinja_cursor::peek_op(const char* op) const { return peek().type == jinja_token::kind::op && peek().text == op; }

bool jinja_cursor::accept_op(const char* op) {
  if (!peek_op(op)) return false;
  next();
  return true;
}

bool jinja_cursor::accept_name(const char* name) {
  if (peek().type != jinja_token::kind::name || peek().text != name) return false;
  next();
  return true;
}

void jinja_cursor::expect_op(const char* op) {
  if (!accept_op(op)) fail(peek().line, std::string("'") + op + "' was expected" + found_text());
}

const jinja_token& jinja_cursor::expect(jinja_token::kind type, const std::string& what) {
  if (peek().type != type) fail(peek().line, what + " was expected" + found_text());
  return next();
}

std::string jinja_cursor::found_text() const {
  const jinja_token& t = peek();
  if (t.type == jinja_token::kind::block_end) return " before %}";
  if (t.type == jinja_token::kind::print_end) return " before }}";
  if (t.type == jinja_token::kind::end) return " at the end of the template";
  return ", not '" + t.text + "'";
}

std::int64_t jinja_cursor::integer_of(const jinja_token& t) {
  try {
    return static_cast<std::int64_t>(std::stoll(t.text));
  } catch (const std::out_of_range&) {
    fail(t.line, "the integer " + t.text + " is too large");
  }
}

void jinja_cursor::count_part() {
  if (++tag_parts_ > max_tag_parts) {
    fail(peek().line, "an expression of more than " + std::to_string(max_tag_parts) + " parts in one tag");
  }
}

void jinja_cursor::fail(int line, const std::string& what) {
  throw jinja_error("line " + std::to_string(line) + ": " + what);
}

jinja_expr_ptr jinja_cursor::make_expr(jinja_expr::kind kind, int line) {
  count_part();
  auto node = std::make_unique<jinja_expr>();
  node->type = kind;
  node->line = line;
  return node;
}

jinja_node_ptr jinja_cursor::make_node(jinja_node::kind kind, int line) {
  auto node = std::make_unique<jinja_node>();
  node->type = kind;
  node->line = line;
  return node;
}

jinja_expr_ptr jinja_cursor::literal(jinja_value value, int line) {
  auto node = make_expr(jinja_expr::kind::literal, line);
  node->value = std::move(value);
  return node;
}

jinja_expr_ptr jinja_cursor::binary(jinja_expr::kind kind, const std::string& op, jinja_expr_ptr left,
                                    jinja_expr_ptr right) {
  auto node = make_expr(kind, left->line);
  node->name = op;
  node->operands.push_back(std::move(left));
  node->operands.push_back(std::move(right));
  return node;
}

jinja_expr_ptr jinja_cursor::clone(const jinja_expr& e) {
  auto copy = std::make_unique<jinja_expr>();
  copy->type = e.type;
  copy->value = e.value;
  copy->name = e.name;
  copy->negated = e.negated;
  copy->line = e.line;
  for (const auto& op : e.operands) copy->operands.push_back(op ? clone(*op) : nullptr);
  for (const auto& [k, v] : e.keywords) copy->keywords.emplace_back(k, clone(*v));
  return copy;
}

}  // namespace ironbench::serve::chat
