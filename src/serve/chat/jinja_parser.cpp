#include "serve/chat/jinja_parser.hpp"

#include <cstdlib>
#include <set>
#include <string>

#include "serve/chat/jinja_cursor.hpp"
#include "serve/chat/jinja_lexer.hpp"

namespace ironbench::serve::chat {
namespace {

using token = jinja_token;
using tk = jinja_token::kind;

class parser : public jinja_cursor {
 public:
  explicit parser(std::vector<token> tokens) : jinja_cursor(std::move(tokens)) {}

  jinja_body parse_template() {
    std::string end_tag;
    auto body = statements({}, end_tag);
    return body;
  }

 private:
  // Statements up to a block tag named in `ends` (which is left unread after its name;
  // `found` says which) or the template's end (allowed only when `ends` is empty).
  jinja_body statements(const std::set<std::string>& ends, std::string& found) {
    if (++block_depth_ > max_block_depth) {
      fail(peek().line, "blocks nested deeper than " + std::to_string(max_block_depth) + " levels");
    }
    jinja_body body;
    while (true) {
      const token& t = peek();
      if (t.type == tk::end) {
        if (!ends.empty()) fail(t.line, "the template ends where {% " + *ends.begin() + " %} was expected");
        --block_depth_;
        return body;
      }
      if (t.type == tk::text) {
        auto node = make_node(jinja_node::kind::text, t.line);
        node->text = next().text;
        body.push_back(std::move(node));
      } else if (t.type == tk::print_begin) {
        next();
        start_tag();
        auto node = make_node(jinja_node::kind::print, t.line);
        node->expression = expression();
        expect(tk::print_end, "}}");
        body.push_back(std::move(node));
      } else if (t.type == tk::block_begin) {
        const token& name = peek(1);
        if (name.type == tk::name && ends.contains(name.text)) {
          next();
          found = next().text;
          --block_depth_;
          return body;
        }
        next();
        start_tag();
        statement(body);
      } else {
        fail(t.line, "unexpected '" + t.text + "'");
      }
    }
  }

  void statement(jinja_body& body) {
    const token& t = next();
    if (t.type != tk::name) fail(t.line, "a statement name was expected after {%");
    const std::string& keyword = t.text;
    if (keyword == "if") {
      body.push_back(if_statement(t.line));
    } else if (keyword == "for") {
      body.push_back(for_statement(t.line));
    } else if (keyword == "set") {
      body.push_back(set_statement(t.line));
    } else if (keyword == "macro") {
      body.push_back(macro_statement(t.line));
    } else if (keyword == "call") {
      body.push_back(call_statement(t.line));
    } else if (keyword == "filter") {
      auto node = make_node(jinja_node::kind::filter_block, t.line);
      node->filters = filter_chain();
      expect(tk::block_end, "%}");
      node->body = block_body("endfilter");
      body.push_back(std::move(node));
    } else if (keyword == "break" || keyword == "continue") {
      if (loop_depth_ == 0) fail(t.line, "{% " + keyword + " %} outside a loop");
      body.push_back(
          make_node(keyword == "break" ? jinja_node::kind::loop_break : jinja_node::kind::loop_continue, t.line));
      expect(tk::block_end, "%}");
    } else if (keyword == "generation") {
      // transformers' marker of the assistant's text: rendered as its body.
      expect(tk::block_end, "%}");
      for (auto& node : block_body("endgeneration")) body.push_back(std::move(node));
    } else {
      fail(t.line, "{% " + keyword + " %} is not supported in chat templates here");
    }
  }

  jinja_body block_body(const std::string& end) {
    std::string found;
    auto body = statements({end}, found);
    expect(tk::block_end, "%}");
    return body;
  }

  jinja_node_ptr if_statement(int line) {
    auto node = make_node(jinja_node::kind::if_block, line);
    auto condition = expression();
    expect(tk::block_end, "%}");
    while (true) {
      std::string found;
      auto body = statements({"elif", "else", "endif"}, found);
      node->branches.emplace_back(std::move(condition), std::move(body));
      if (found == "elif") {
        condition = expression();
        expect(tk::block_end, "%}");
      } else if (found == "else") {
        expect(tk::block_end, "%}");
        std::string end;
        node->branches.emplace_back(nullptr, statements({"endif"}, end));
        expect(tk::block_end, "%}");
        return node;
      } else {
        expect(tk::block_end, "%}");
        return node;
      }
    }
  }

  jinja_node_ptr for_statement(int line) {
    auto node = make_node(jinja_node::kind::for_loop, line);
    node->target = target(false);
    if (!accept_name("in")) fail(peek().line, "'in' was expected in {% for %}");
    node->expression = or_expression();  // no "x if y": the loop's own "if" follows
    if (accept_name("if")) node->condition = expression();
    if (accept_name("recursive")) fail(line, "recursive loops are not supported");
    expect(tk::block_end, "%}");
    ++loop_depth_;
    std::string found;
    node->body = statements({"else", "endfor"}, found);
    --loop_depth_;
    expect(tk::block_end, "%}");
    if (found == "else") {
      std::string end;
      node->else_body = statements({"endfor"}, end);
      expect(tk::block_end, "%}");
    }
    return node;
  }

  jinja_node_ptr set_statement(int line) {
    auto target_names = target(true);
    if (accept_op("=")) {
      auto node = make_node(jinja_node::kind::set, line);
      node->target = std::move(target_names);
      node->expression = tuple_or_expression();
      expect(tk::block_end, "%}");
      return node;
    }
    auto node = make_node(jinja_node::kind::set_block, line);
    if (target_names.names.size() != 1 || !target_names.attribute.empty()) {
      fail(line, "a {% set %} block assigns one name");
    }
    node->target = std::move(target_names);
    if (accept_op("|")) {
      step_back();
      node->filters = filter_chain();
    }
    expect(tk::block_end, "%}");
    node->body = block_body("endset");
    return node;
  }

  jinja_node_ptr macro_statement(int line) {
    auto node = make_node(jinja_node::kind::macro, line);
    node->target.names.push_back(expect(tk::name, "a macro name").text);
    node->parameters = parameters();
    expect(tk::block_end, "%}");
    node->body = block_body("endmacro");
    return node;
  }

  jinja_node_ptr call_statement(int line) {
    auto node = make_node(jinja_node::kind::call_block, line);
    if (peek().type == tk::op && peek().text == "(") node->parameters = parameters();
    node->expression = expression();
    if (node->expression->type != jinja_expr::kind::call) fail(line, "{% call %} needs a macro call");
    expect(tk::block_end, "%}");
    node->body = block_body("endcall");
    return node;
  }

  std::vector<std::pair<std::string, jinja_expr_ptr>> parameters() {
    std::vector<std::pair<std::string, jinja_expr_ptr>> params;
    expect_op("(");
    while (!accept_op(")")) {
      if (!params.empty()) expect_op(",");
      if (accept_op(")")) break;
      std::string name = expect(tk::name, "a parameter name").text;
      jinja_expr_ptr default_value;
      if (accept_op("=")) default_value = expression();
      params.emplace_back(std::move(name), std::move(default_value));
    }
    return params;
  }

  // name[, name...] or (set only) name.attribute
  jinja_target target(bool allow_attribute) {
    jinja_target result;
    const bool parenthesized = accept_op("(");
    result.names.push_back(expect(tk::name, "a variable name").text);
    if (allow_attribute && accept_op(".")) {
      result.attribute = expect(tk::name, "an attribute name").text;
      return result;
    }
    while (accept_op(",")) {
      if (peek().type != tk::name) break;
      result.names.push_back(next().text);
    }
    if (parenthesized) expect_op(")");
    return result;
  }

  // A filter chain without its input: name(args) | name(args) ...
  std::vector<jinja_expr_ptr> filter_chain() {
    std::vector<jinja_expr_ptr> chain;
    do {
      chain.push_back(filter_call(nullptr));
    } while (accept_op("|"));
    return chain;
  }

  // ---- expressions, lowest precedence first (Jinja2's parser) ----

  jinja_expr_ptr tuple_or_expression() {
    auto first = expression();
    if (!(peek().type == tk::op && peek().text == ",")) return first;
    auto tuple = make_expr(jinja_expr::kind::tuple, first->line);
    tuple->operands.push_back(std::move(first));
    while (accept_op(",")) {
      if (peek().type == tk::block_end || peek().type == tk::print_end) break;
      tuple->operands.push_back(expression());
    }
    return tuple;
  }

  jinja_expr_ptr expression() {
    count_part();
    auto value = or_expression();
    while (accept_name("if")) {
      auto node = make_expr(jinja_expr::kind::conditional, value->line);
      node->operands.push_back(or_expression());
      node->operands.push_back(std::move(value));
      node->operands.push_back(accept_name("else") ? expression() : nullptr);
      value = std::move(node);
    }
    return value;
  }

  jinja_expr_ptr or_expression() {
    auto left = and_expression();
    while (accept_name("or")) left = binary(jinja_expr::kind::logical_or, "or", std::move(left), and_expression());
    return left;
  }

  jinja_expr_ptr and_expression() {
    auto left = not_expression();
    while (accept_name("and")) left = binary(jinja_expr::kind::logical_and, "and", std::move(left), not_expression());
    return left;
  }

  jinja_expr_ptr not_expression() {
    if (peek().type == tk::name && peek().text == "not") {
      const int line = next().line;
      auto node = make_expr(jinja_expr::kind::logical_not, line);
      node->operands.push_back(not_expression());
      return node;
    }
    return comparison();
  }

  jinja_expr_ptr comparison() {
    auto left = additive();
    jinja_expr_ptr result;
    static const std::set<std::string> operators{"==", "!=", "<", "<=", ">", ">="};
    while (true) {
      std::string op;
      if (peek().type == tk::op && operators.contains(peek().text)) {
        op = next().text;
      } else if (accept_name("in")) {
        op = "in";
      } else if (peek().type == tk::name && peek().text == "not" && peek(1).type == tk::name && peek(1).text == "in") {
        skip(2);
        op = "not in";
      } else {
        break;
      }
      // a < b < c is a < b and b < c: the middle operand is evaluated for each (no side effects here)
      auto right = additive();
      auto compare = make_expr(jinja_expr::kind::binary, left->line);
      compare->name = op;
      compare->operands.push_back(std::move(left));
      compare->operands.push_back(std::move(right));
      left = clone(*compare->operands[1]);
      result = result ? binary(jinja_expr::kind::logical_and, "and", std::move(result), std::move(compare))
                      : std::move(compare);
    }
    return result ? std::move(result) : std::move(left);
  }

  jinja_expr_ptr additive() {
    auto left = concatenation();
    while (peek().type == tk::op && (peek().text == "+" || peek().text == "-")) {
      const std::string op = next().text;
      left = binary(jinja_expr::kind::binary, op, std::move(left), concatenation());
    }
    return left;
  }

  jinja_expr_ptr concatenation() {
    auto left = multiplicative();
    while (accept_op("~")) left = binary(jinja_expr::kind::binary, "~", std::move(left), multiplicative());
    return left;
  }

  jinja_expr_ptr multiplicative() {
    auto left = power();
    while (peek().type == tk::op &&
           (peek().text == "*" || peek().text == "/" || peek().text == "//" || peek().text == "%")) {
      const std::string op = next().text;
      left = binary(jinja_expr::kind::binary, op, std::move(left), power());
    }
    return left;
  }

  jinja_expr_ptr power() {
    auto left = unary(true);
    while (accept_op("**")) left = binary(jinja_expr::kind::binary, "**", std::move(left), unary(true));
    return left;
  }

  jinja_expr_ptr unary(bool with_filters) {
    jinja_expr_ptr node;
    if (peek().type == tk::op && (peek().text == "-" || peek().text == "+")) {
      const token& sign = next();
      node = make_expr(sign.text == "-" ? jinja_expr::kind::negate : jinja_expr::kind::plus, sign.line);
      node->operands.push_back(unary(false));
    } else {
      node = postfix(primary());
    }
    return with_filters ? filters_and_tests(std::move(node)) : std::move(node);
  }

  jinja_expr_ptr primary() {
    const token& t = next();
    switch (t.type) {
      case tk::name: {
        if (t.text == "true" || t.text == "True") return literal(true, t.line);
        if (t.text == "false" || t.text == "False") return literal(false, t.line);
        if (t.text == "none" || t.text == "None") return literal(jinja_value::none(), t.line);
        auto node = make_expr(jinja_expr::kind::name, t.line);
        node->name = t.text;
        return node;
      }
      case tk::string: {
        std::string text = t.text;
        while (peek().type == tk::string) text += next().text;  // adjacent literals join
        return literal(std::move(text), t.line);
      }
      case tk::integer: return literal(integer_of(t), t.line);
      // As Python's float(): 1e999 is inf, 1e-999 is 0 (std::stod would throw for both).
      case tk::floating: return literal(std::strtod(t.text.c_str(), nullptr), t.line);
      case tk::op:
        if (t.text == "(") return parenthesized(t.line);
        if (t.text == "[") return list_literal(t.line);
        if (t.text == "{") return dict_literal(t.line);
        break;
      default: break;
    }
    fail(t.line, t.type == tk::print_end || t.type == tk::block_end ? "an expression was expected"
                                                                    : "unexpected '" + t.text + "'");
  }

  jinja_expr_ptr parenthesized(int line) {
    count_part();
    if (accept_op(")")) return make_expr(jinja_expr::kind::tuple, line);
    auto first = expression();
    if (accept_op(")")) return first;
    auto tuple = make_expr(jinja_expr::kind::tuple, line);
    tuple->operands.push_back(std::move(first));
    while (accept_op(",")) {
      if (peek().type == tk::op && peek().text == ")") break;
      tuple->operands.push_back(expression());
    }
    expect_op(")");
    return tuple;
  }

  jinja_expr_ptr list_literal(int line) {
    auto node = make_expr(jinja_expr::kind::list, line);
    while (!accept_op("]")) {
      if (!node->operands.empty()) expect_op(",");
      if (accept_op("]")) break;
      node->operands.push_back(expression());
    }
    return node;
  }

  jinja_expr_ptr dict_literal(int line) {
    auto node = make_expr(jinja_expr::kind::dict, line);
    while (!accept_op("}")) {
      if (!node->operands.empty()) expect_op(",");
      if (accept_op("}")) break;
      node->operands.push_back(expression());
      expect_op(":");
      node->operands.push_back(expression());
    }
    return node;
  }

  jinja_expr_ptr postfix(jinja_expr_ptr node) {
    while (peek().type == tk::op) {
      const std::string& op = peek().text;
      if (op == ".") {
        const int line = next().line;
        const token& member = next();
        if (member.type == tk::name) {
          auto attribute = make_expr(jinja_expr::kind::attribute, line);
          attribute->name = member.text;
          attribute->operands.push_back(std::move(node));
          node = std::move(attribute);
        } else if (member.type == tk::integer) {
          auto subscript = make_expr(jinja_expr::kind::subscript, line);
          subscript->operands.push_back(std::move(node));
          subscript->operands.push_back(literal(integer_of(member), line));
          node = std::move(subscript);
        } else {
          fail(line, "an attribute name was expected after '.'");
        }
      } else if (op == "[") {
        node = subscript(std::move(node));
      } else if (op == "(") {
        node = call(std::move(node));
      } else {
        break;
      }
    }
    return node;
  }

  jinja_expr_ptr subscript(jinja_expr_ptr target) {
    const int line = next().line;
    jinja_expr_ptr start;
    if (!(peek().type == tk::op && peek().text == ":")) {
      start = expression();
      if (accept_op("]")) {
        auto node = make_expr(jinja_expr::kind::subscript, line);
        node->operands.push_back(std::move(target));
        node->operands.push_back(std::move(start));
        return node;
      }
    }
    expect_op(":");
    auto node = make_expr(jinja_expr::kind::slice, line);
    node->operands.push_back(std::move(target));
    node->operands.push_back(std::move(start));
    node->operands.push_back(peek_op("]") || peek_op(":") ? nullptr : expression());
    node->operands.push_back(accept_op(":") && !peek_op("]") ? expression() : nullptr);
    expect_op("]");
    return node;
  }

  jinja_expr_ptr call(jinja_expr_ptr callee) {
    auto node = make_expr(jinja_expr::kind::call, callee->line);
    node->operands.push_back(std::move(callee));
    arguments(*node);
    return node;
  }

  // (a, b, name=c): appended to node's operands and keywords.
  void arguments(jinja_expr& node) {
    expect_op("(");
    bool first = true;
    while (!accept_op(")")) {
      if (!first) expect_op(",");
      first = false;
      if (accept_op(")")) break;
      if (peek_op("*") || peek_op("**")) fail(peek().line, "*args and **kwargs are not supported");
      if (peek().type == tk::name && peek(1).type == tk::op && peek(1).text == "=") {
        std::string name = next().text;
        next();
        node.keywords.emplace_back(std::move(name), expression());
      } else {
        if (!node.keywords.empty()) fail(peek().line, "a positional argument follows a keyword argument");
        node.operands.push_back(expression());
      }
    }
  }

  jinja_expr_ptr filters_and_tests(jinja_expr_ptr node) {
    while (true) {
      if (accept_op("|")) {
        node = filter_call(std::move(node));
      } else if (peek().type == tk::name && peek().text == "is") {
        node = test(std::move(node));
      } else if (peek_op("(")) {
        node = call(std::move(node));
      } else {
        return node;
      }
    }
  }

  jinja_expr_ptr filter_call(jinja_expr_ptr input) {
    const token& name = expect(tk::name, "a filter name");
    auto node = make_expr(jinja_expr::kind::filter, name.line);
    node->name = name.text;
    node->operands.push_back(std::move(input));
    if (peek_op("(")) arguments(*node);
    return node;
  }

  jinja_expr_ptr test(jinja_expr_ptr input) {
    const int line = next().line;  // "is"
    auto node = make_expr(jinja_expr::kind::test, line);
    node->negated = accept_name("not");
    node->name = expect(tk::name, "a test name").text;
    node->operands.push_back(std::move(input));
    const token& t = peek();
    if (peek_op("(")) {
      arguments(*node);
    } else if ((t.type == tk::name || t.type == tk::string || t.type == tk::integer || t.type == tk::floating ||
                (t.type == tk::op && (t.text == "[" || t.text == "{"))) &&
               !(t.type == tk::name && (t.text == "else" || t.text == "or" || t.text == "and"))) {
      node->operands.push_back(postfix(primary()));
    }
    return node;
  }

  int loop_depth_ = 0;
  static constexpr int max_block_depth = 100;
  int block_depth_ = 0;
};

}  // namespace

jinja_body parse_jinja(std::string_view source) { return parser(lex_jinja(source)).parse_template(); }

}  // namespace ironbench::serve::chat
