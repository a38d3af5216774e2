// libFuzzer target of the --axis parsers (src/core/axis.hpp): the input is an override
// ("[BENCH:]NAME[[pow2]]=SPEC") split by parse_axis_override, whose SPEC is then expanded for
// the axis it names, as `ironbench run` does: M (integer), size (a size), ratio (floating
// point) or dtype (strings with choices); any other NAME picks one of the four by its length,
// so that every kind is reached whatever the name. One axis an input, not all four: an input
// of 100,000 values is expanded once instead of three times (docs/reliability.md). usage_error is the
// expected answer to a bad override; aborts when one is accepted with more values than
// max_axis_values, a value of another kind than the axis, a floating value that is not
// finite, or a string that is not one of the choices.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/axis.hpp"
#include "core/error.hpp"

namespace {

void check_axis_values(const ironbench::core::axis& target, const std::vector<ironbench::core::axis_value>& values) {
  if (values.empty() || values.size() > ironbench::core::max_axis_values) std::abort();
  for (const auto& v : values) {
    switch (target.kind) {
      case ironbench::core::axis_kind::integer:
        if (!std::holds_alternative<std::int64_t>(v)) std::abort();
        break;
      case ironbench::core::axis_kind::floating:
        if (!std::holds_alternative<double>(v) || !std::isfinite(std::get<double>(v))) std::abort();
        break;
      case ironbench::core::axis_kind::string:
        if (!std::holds_alternative<std::string>(v)) std::abort();
        if (std::find(target.choices.begin(), target.choices.end(), std::get<std::string>(v)) == target.choices.end())
          std::abort();
        break;
    }
    (void)ironbench::core::display_value(target, v);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<ironbench::core::axis> axes = {
      ironbench::core::integer_axis("M", {1024}, "rows"),
      ironbench::core::size_axis("size", {1 << 20}, "bytes per array"),
      ironbench::core::floating_axis("ratio", {0.5}, "a fraction"),
      ironbench::core::string_axis("dtype", {"fp32"}, "element type", {"fp32", "fp16", "bf16"}),
  };
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ironbench::core::axis_override override_spec;
  try {
    override_spec = ironbench::core::parse_axis_override(text);
  } catch (const ironbench::usage_error&) {
    return 0;
  }
  const auto named = std::find_if(axes.begin(), axes.end(),
                                  [&](const ironbench::core::axis& a) { return a.name == override_spec.name; });
  const auto& target = named != axes.end() ? *named : axes[override_spec.name.size() % axes.size()];
  try {
    check_axis_values(target, ironbench::core::parse_axis_values(target, override_spec));
  } catch (const ironbench::usage_error&) {
  }
  return 0;
}
