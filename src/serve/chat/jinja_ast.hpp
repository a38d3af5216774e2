// A parsed Jinja template: its expressions and statements, as serve/chat/jinja_parser.hpp
// builds them and serve/chat/jinja_renderer.hpp runs them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "serve/chat/jinja_value.hpp"

namespace ironbench::serve::chat {

struct jinja_expr;
using jinja_expr_ptr = std::unique_ptr<jinja_expr>;

struct jinja_expr {
  enum class kind {
    literal,      ///< value
    name,         ///< a variable: name
    list,         ///< [operands...]
    tuple,        ///< (operands...): a list for the renderer
    dict,         ///< {keyword[i].first-expression: ...}: operands are key, value, key, value ...
    attribute,    ///< operands[0].name
    subscript,    ///< operands[0][operands[1]]
    slice,        ///< operands[0][operands[1]:operands[2]:operands[3]] (null: left out)
    call,         ///< operands[0](operands[1..], keywords)
    filter,       ///< operands[0] | name(operands[1..], keywords)
    test,         ///< operands[0] is [not] name(operands[1..])
    logical_not,  ///< not operands[0]
    negate,       ///< -operands[0]
    plus,         ///< +operands[0]
    binary,       ///< operands[0] name operands[1]: + - * / // % ** ~ == != < <= > >= in "not in"
    logical_and,
    logical_or,
    conditional,  ///< operands[1] if operands[0] else operands[2] (null: Undefined)
  };
  kind type = kind::literal;
  jinja_value value;
  std::string name;
  std::vector<jinja_expr_ptr> operands;
  std::vector<std::pair<std::string, jinja_expr_ptr>> keywords;
  bool negated = false;  ///< "is not"
  int line = 0;
};

struct jinja_node;
using jinja_node_ptr = std::unique_ptr<jinja_node>;
using jinja_body = std::vector<jinja_node_ptr>;

/// An assignment's or a loop's target: names (unpacked when more than one), or ns.attribute.
struct jinja_target {
  std::vector<std::string> names;
  std::string attribute;  ///< set: names[0].attribute = ...
};

struct jinja_node {
  enum class kind {
    text,       ///< text
    print,      ///< {{ expression }}
    if_block,   ///< branches: condition (null for else) and body
    for_loop,   ///< for target in expression [if condition]: body [else: else_body]
    set,        ///< set target = expression
    set_block,  ///< set target: body (through filters: filter_names)
    macro,      ///< macro name(parameters): body
    filter_block,
    call_block,  ///< call macro(...) with caller() as body
    loop_break,
    loop_continue,
  };
  kind type = kind::text;
  std::string text;
  jinja_expr_ptr expression;
  jinja_expr_ptr condition;
  std::vector<std::pair<jinja_expr_ptr, jinja_body>> branches;
  jinja_target target;
  jinja_body body;
  jinja_body else_body;
  std::vector<std::pair<std::string, jinja_expr_ptr>> parameters;  ///< a macro's, with defaults
  std::vector<jinja_expr_ptr> filters;                             ///< a filter block's (operand 0 unset)
  int line = 0;
};

}  // namespace ironbench::serve::chat
