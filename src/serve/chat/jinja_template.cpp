#include "serve/chat/jinja_template.hpp"

#include <ctime>
#include <optional>

#include "serve/chat/jinja_filters.hpp"
#include "serve/chat/jinja_members.hpp"
#include "serve/chat/jinja_operators.hpp"
#include "serve/chat/jinja_parser.hpp"
#include "serve/chat/jinja_tests.hpp"
#include "serve/chat/jinja_work.hpp"

namespace ironbench::serve::chat {
namespace {

constexpr int max_call_depth = 200;         // macros calling macros (recursive ones render JSON schemas)
constexpr std::int64_t max_range = 100000;  // Jinja2's sandbox refuses longer ranges too
// Expressions and blocks evaluated inside one another, macro calls included: a bound on the
// renderer's recursion (a recursive macro over nested blocks), far above real templates'
// and within an 8 MiB stack under AddressSanitizer too (about 4 KiB a level there: 2000
// levels overflowed it).
constexpr int max_render_nesting = 500;
// Loop iterations in one rendering: real templates iterate over the messages, tools and their
// parameters, hundreds or thousands of times; nested ranges could iterate 10^10 times and hang
// a run.
constexpr std::int64_t max_loop_iterations = 100000;
// The steps of work (jinja_work.hpp) an iteration takes before its body: binding `loop`, a dict
// of twelve entries, costs about as much as eight expressions.
constexpr std::int64_t steps_per_iteration = 8;

// Variables of one level: the globals, the template's top level, a loop iteration, a macro call.
struct scope {
  scope* parent = nullptr;
  jinja_dict vars;

  [[nodiscard]] const jinja_value* lookup(const std::string& name) const {
    for (const scope* s = this; s != nullptr; s = s->parent) {
      if (const auto* v = s->vars.find(name)) return v;
    }
    return nullptr;
  }
};

enum class flow { normal, break_loop, continue_loop };

std::int64_t int_arg(const jinja_value& v, const char* what) {
  if (v.is_int()) return v.as_int();
  if (v.is_bool()) return v.as_bool() ? 1 : 0;
  throw jinja_error(std::string(what) + " takes integers, not " + v.type_name());
}

jinja_value range_global(const jinja_args& args) {
  if (args.positional.empty() || args.positional.size() > 3) throw jinja_error("range() takes 1 to 3 integers");
  std::int64_t start = 0;
  std::int64_t stop = 0;
  std::int64_t step = 1;
  if (args.positional.size() == 1) {
    stop = int_arg(args.positional[0], "range()");
  } else {
    start = int_arg(args.positional[0], "range()");
    stop = int_arg(args.positional[1], "range()");
    if (args.positional.size() == 3) step = int_arg(args.positional[2], "range()");
  }
  if (step == 0) throw jinja_error("range() arg 3 must not be zero");
  jinja_list out;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (static_cast<std::int64_t>(out.size()) >= max_range) throw jinja_error("range() too big (over 100000 items)");
    out.emplace_back(i);
  }
  return out;
}

jinja_value dict_from_args(const jinja_args& args, bool as_namespace) {
  jinja_dict dict;
  dict.is_namespace = as_namespace;
  for (const auto& positional : args.positional) {
    if (!positional.is_dict()) throw jinja_error("namespace()/dict() take a dict or keyword arguments");
    for (const auto& [k, v] : positional.as_dict().items) dict.set(k, v);
  }
  for (const auto& [k, v] : args.keyword) dict.set(k, v);
  return dict;
}

jinja_value strftime_now(const jinja_args& args) {
  const auto* format = args.get(0, "format");
  if (format == nullptr || !format->is_string()) throw jinja_error("strftime_now() takes a format string");
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[256];
  const auto length = std::strftime(buffer, sizeof buffer, format->as_string().c_str(), &local);
  return std::string(buffer, length);
}

void add_globals(jinja_dict& globals) {
  globals.set("range", jinja_callable{"range", range_global});
  globals.set("namespace", jinja_callable{"namespace", [](const jinja_args& a) { return dict_from_args(a, true); }});
  globals.set("dict", jinja_callable{"dict", [](const jinja_args& a) { return dict_from_args(a, false); }});
  globals.set("raise_exception", jinja_callable{"raise_exception", [](const jinja_args& a) -> jinja_value {
                                                  const auto* message = a.get(0, "message");
                                                  throw jinja_error("the template raised an exception: " +
                                                                    (message != nullptr ? message->str() : ""));
                                                }});
  globals.set("strftime_now", jinja_callable{"strftime_now", strftime_now});
}

class renderer {
 public:
  explicit renderer(const jinja_dict& variables) {
    add_globals(globals_.vars);
    top_.parent = &globals_;
    top_.vars = variables;
  }

  std::string run(const jinja_body& body, std::int64_t max_steps) {
    const jinja_work_budget budget(max_steps);
    std::string out;
    render(body, top_, out);
    return out;
  }

 private:
  flow render(const jinja_body& body, scope& s, std::string& out) {
    for (const auto& node : body) {
      try {
        const flow f = render_node(*node, s, out);
        if (out.size() > jinja_max_built_size) {
          throw jinja_error("the rendered text passes " + std::to_string(jinja_max_built_size) + " bytes");
        }
        if (f != flow::normal) return f;
      } catch (const jinja_error& e) {
        throw located(e, node->line);
      }
    }
    return flow::normal;
  }

  // The innermost statement's line names where an error happened.
  static jinja_error located(const jinja_error& e, int line) {
    const std::string what = e.what();
    if (what.starts_with("line ")) return e;
    return jinja_error("line " + std::to_string(line) + ": " + what);
  }

  flow render_node(const jinja_node& node, scope& s, std::string& out) {
    const nesting_level level(nesting_);
    jinja_charge(1);
    switch (node.type) {
      case jinja_node::kind::text: out += node.text; return flow::normal;
      case jinja_node::kind::print: {
        const auto text = eval(*node.expression, s).str();
        jinja_charge(jinja_steps_for_bytes(text.size()));
        out += text;
        return flow::normal;
      }
      case jinja_node::kind::if_block:
        for (const auto& [condition, body] : node.branches) {
          if (!condition || eval(*condition, s).truthy()) return render(body, s, out);
        }
        return flow::normal;
      case jinja_node::kind::for_loop: render_loop(node, s, out); return flow::normal;
      case jinja_node::kind::set: assign(node.target, eval(*node.expression, s), s); return flow::normal;
      case jinja_node::kind::set_block: {
        std::string captured;
        render(node.body, s, captured);
        assign(node.target, apply_filters(node.filters, captured, s), s);
        return flow::normal;
      }
      case jinja_node::kind::macro: s.vars.set(node.target.names[0], make_macro(node)); return flow::normal;
      case jinja_node::kind::filter_block: {
        std::string captured;
        render(node.body, s, captured);
        out += apply_filters(node.filters, captured, s).str();
        return flow::normal;
      }
      case jinja_node::kind::call_block: out += call_with_caller(node, s).str(); return flow::normal;
      case jinja_node::kind::loop_break: return flow::break_loop;
      case jinja_node::kind::loop_continue: return flow::continue_loop;
    }
    return flow::normal;
  }

  void render_loop(const jinja_node& node, scope& s, std::string& out) {
    const auto iterable = eval(*node.expression, s);
    if (!iterable.is_undefined() && !iterable.is_list() && !iterable.is_dict() && !iterable.is_string()) {
      throw jinja_error("'" + iterable.type_name() + "' object is not iterable");
    }
    jinja_list items;
    for (auto& item : iterable.iterate()) {
      if (node.condition) {
        scope filter_scope{&s, {}};
        bind_target(node.target, item, filter_scope);
        if (!eval(*node.condition, filter_scope).truthy()) continue;
      }
      items.push_back(std::move(item));
    }
    const auto n = static_cast<std::int64_t>(items.size());
    for (std::int64_t i = 0; i < n; ++i) {
      if (++iterations_ > max_loop_iterations) {
        throw jinja_error("more than " + std::to_string(max_loop_iterations) + " loop iterations in one rendering");
      }
      jinja_charge(steps_per_iteration);
      scope iteration{&s, {}};
      bind_target(node.target, items[static_cast<std::size_t>(i)], iteration);
      jinja_dict loop;
      loop.set("index", i + 1);
      loop.set("index0", i);
      loop.set("revindex", n - i);
      loop.set("revindex0", n - i - 1);
      loop.set("first", i == 0);
      loop.set("last", i == n - 1);
      loop.set("length", n);
      loop.set("depth", 1);
      loop.set("depth0", 0);
      loop.set("previtem", i > 0 ? items[static_cast<std::size_t>(i - 1)] : jinja_value::undefined("loop.previtem"));
      loop.set("nextitem",
               i + 1 < n ? items[static_cast<std::size_t>(i + 1)] : jinja_value::undefined("loop.nextitem"));
      loop.set("cycle", jinja_callable{"loop.cycle", [i](const jinja_args& a) -> jinja_value {
                                         if (a.positional.empty()) throw jinja_error("loop.cycle() needs arguments");
                                         return a.positional[static_cast<std::size_t>(i) % a.positional.size()];
                                       }});
      iteration.vars.set("loop", std::move(loop));
      if (render(node.body, iteration, out) == flow::break_loop) return;
    }
    if (n == 0) render(node.else_body, s, out);
  }

  static void bind_target(const jinja_target& target, const jinja_value& value, scope& s) {
    if (target.names.size() == 1) {
      s.vars.set(target.names[0], value);
      return;
    }
    const auto parts = value.iterate();
    if (parts.size() != target.names.size()) {
      throw jinja_error("cannot unpack " + std::to_string(parts.size()) + " values into " +
                        std::to_string(target.names.size()) + " names");
    }
    for (std::size_t i = 0; i < parts.size(); ++i) s.vars.set(target.names[i], parts[i]);
  }

  static void assign(const jinja_target& target, const jinja_value& value, scope& s) {
    if (target.attribute.empty()) {
      bind_target(target, value, s);
      return;
    }
    const auto* object = s.lookup(target.names[0]);
    if (object == nullptr || !object->is_dict() || !object->as_dict().is_namespace) {
      throw jinja_error("cannot assign attribute on non-namespace object '" + target.names[0] + "'");
    }
    object->as_dict().set(target.attribute, value);
  }

  jinja_value apply_filters(const std::vector<jinja_expr_ptr>& filters, jinja_value input, scope& s) {
    for (const auto& filter : filters) {
      input = apply_jinja_filter(filter->name, input, arguments(*filter, 1, s));
    }
    return input;
  }

  jinja_value make_macro(const jinja_node& node) {
    const jinja_node* macro = &node;
    return jinja_callable{node.target.names[0], [this, macro](const jinja_args& args) -> jinja_value {
                            const auto* caller = args.get(static_cast<std::size_t>(-1), "caller");
                            return call_macro(*macro, args,
                                              caller != nullptr && caller->is_callable() ? caller : nullptr);
                          }};
  }

  jinja_value call_macro(const jinja_node& macro, const jinja_args& args, const jinja_value* caller) {
    if (++depth_ > max_call_depth) {
      depth_ = 0;
      throw jinja_error("macros nested deeper than " + std::to_string(max_call_depth) + " calls");
    }
    scope call_scope{&top_, {}};
    const auto& params = macro.parameters;
    if (args.positional.size() > params.size()) {
      throw jinja_error("macro '" + macro.target.names[0] + "' takes not more than " + std::to_string(params.size()) +
                        " argument(s)");
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto& [name, default_value] = params[i];
      if (const auto* given = args.get(i, name)) {
        call_scope.vars.set(name, *given);
      } else {
        call_scope.vars.set(name, default_value ? eval(*default_value, call_scope) : jinja_value::undefined(name));
      }
    }
    for (const auto& [name, value] : args.keyword) {
      if (name == "caller" && caller != nullptr) continue;
      const bool known = std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == name; });
      if (!known) throw jinja_error("macro '" + macro.target.names[0] + "' takes no keyword argument '" + name + "'");
    }
    if (caller != nullptr) call_scope.vars.set("caller", *caller);
    std::string out;
    render(macro.body, call_scope, out);
    --depth_;
    return out;
  }

  jinja_value call_with_caller(const jinja_node& node, scope& s) {
    const auto& call = *node.expression;
    const auto callee = eval(*call.operands[0], s);
    if (!callee.is_callable()) throw jinja_error("{% call %} needs a macro");
    const jinja_node* block = &node;
    scope* outer = &s;
    const jinja_value caller =
        jinja_callable{"caller", [this, block, outer](const jinja_args& args) -> jinja_value {
                         scope caller_scope{outer, {}};
                         for (std::size_t i = 0; i < block->parameters.size(); ++i) {
                           const auto& [name, fallback] = block->parameters[i];
                           const auto* given = args.get(i, name);
                           caller_scope.vars.set(name, given != nullptr ? *given
                                                       : fallback       ? eval(*fallback, caller_scope)
                                                                        : jinja_value::undefined(name));
                         }
                         std::string out;
                         render(block->body, caller_scope, out);
                         return out;
                       }};
    auto args = arguments(call, 1, s);
    args.keyword.emplace_back("caller", caller);
    return callee.as_callable().call(args);  // a macro binds the "caller" keyword as caller()
  }

  jinja_args arguments(const jinja_expr& e, std::size_t first, scope& s) {
    jinja_args args;
    for (std::size_t i = first; i < e.operands.size(); ++i) args.positional.push_back(eval(*e.operands[i], s));
    for (const auto& [name, value] : e.keywords) args.keyword.emplace_back(name, eval(*value, s));
    return args;
  }

  static std::optional<std::int64_t> slice_bound(const jinja_value& v) {
    if (v.is_none() || v.is_undefined()) return std::nullopt;
    return int_arg(v, "slice indices");
  }

  // Counts one level of the renderer's recursion while it lives.
  class nesting_level {
   public:
    explicit nesting_level(int& nesting) : nesting_(nesting) {
      if (++nesting_ > max_render_nesting) {
        --nesting_;
        throw jinja_error("expressions and blocks nested deeper than " + std::to_string(max_render_nesting) +
                          " levels while rendering");
      }
    }
    nesting_level(const nesting_level&) = delete;
    nesting_level& operator=(const nesting_level&) = delete;
    ~nesting_level() { --nesting_; }

   private:
    int& nesting_;
  };

  jinja_value eval(const jinja_expr& e, scope& s) {
    const nesting_level level(nesting_);
    jinja_charge(1);
    using k = jinja_expr::kind;
    switch (e.type) {
      case k::literal: return e.value;
      case k::name: {
        const auto* v = s.lookup(e.name);
        if (v == nullptr) return jinja_value::undefined(e.name);
        if (v->is_string()) jinja_charge(jinja_steps_for_bytes(v->as_string().size()));  // copied
        return *v;
      }
      case k::list:
      case k::tuple: {
        jinja_list items;
        for (const auto& operand : e.operands) items.push_back(eval(*operand, s));
        return e.type == k::tuple ? jinja_value::tuple(std::move(items)) : jinja_value(std::move(items));
      }
      case k::dict: {
        jinja_dict dict;
        for (std::size_t i = 0; i + 1 < e.operands.size(); i += 2) {
          const auto key = eval(*e.operands[i], s);
          if (!key.is_string()) throw jinja_error("dict keys must be strings here, not " + key.type_name());
          dict.set(key.as_string(), eval(*e.operands[i + 1], s));
        }
        return dict;
      }
      case k::attribute: return jinja_attribute(eval(*e.operands[0], s), e.name);
      case k::subscript: return jinja_item(eval(*e.operands[0], s), eval(*e.operands[1], s));
      case k::slice: {
        const auto object = eval(*e.operands[0], s);
        const auto bound = [&](std::size_t i) {
          return e.operands[i] ? slice_bound(eval(*e.operands[i], s)) : std::nullopt;
        };
        return jinja_slice(object, bound(1), bound(2), bound(3));
      }
      case k::call: {
        const auto callee = eval(*e.operands[0], s);
        if (callee.is_undefined()) throw jinja_error("'" + callee.undefined_name() + "' is undefined (called)");
        if (!callee.is_callable()) throw jinja_error("'" + callee.type_name() + "' object is not callable");
        return callee.as_callable().call(arguments(e, 1, s));
      }
      case k::filter: return apply_jinja_filter(e.name, eval(*e.operands[0], s), arguments(e, 1, s));
      case k::test: {
        const bool result = apply_jinja_test(e.name, eval(*e.operands[0], s), arguments(e, 1, s));
        return e.negated ? !result : result;
      }
      case k::logical_not: return !eval(*e.operands[0], s).truthy();
      case k::negate:
      case k::plus: {
        const auto v = eval(*e.operands[0], s);
        if (e.type == k::plus && (v.is_number() || v.is_bool())) return v.is_bool() ? jinja_value(int_arg(v, "+")) : v;
        if (v.is_int()) {
          if (v.as_int() == INT64_MIN) throw jinja_error("the integer result of - does not fit in 64 bits");
          return -v.as_int();
        }
        if (v.is_float()) return -v.as_double();
        if (v.is_bool()) return -int_arg(v, "-");
        if (v.is_undefined()) throw jinja_error("'" + v.undefined_name() + "' is undefined (negated)");
        throw jinja_error("bad operand type for unary -: '" + v.type_name() + "'");
      }
      case k::binary: return apply_jinja_operator(e.name, eval(*e.operands[0], s), eval(*e.operands[1], s));
      case k::logical_and: {
        auto left = eval(*e.operands[0], s);
        return left.truthy() ? eval(*e.operands[1], s) : left;
      }
      case k::logical_or: {
        auto left = eval(*e.operands[0], s);
        return left.truthy() ? left : eval(*e.operands[1], s);
      }
      case k::conditional:
        if (eval(*e.operands[0], s).truthy()) return eval(*e.operands[1], s);
        return e.operands[2] ? eval(*e.operands[2], s) : jinja_value::undefined("the else of a conditional");
    }
    return {};
  }

  scope globals_;
  scope top_;
  int depth_ = 0;
  int nesting_ = 0;
  std::int64_t iterations_ = 0;  // loop iterations so far (max_loop_iterations)
};

}  // namespace

jinja_template::jinja_template(std::string_view source)
    : body_(std::make_shared<const jinja_body>(parse_jinja(source))) {}

std::string jinja_template::render(const jinja_dict& variables, std::int64_t max_steps) const {
  return renderer(variables).run(*body_, max_steps);
}

}  // namespace ironbench::serve::chat
