#include "train/lora_spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/error.hpp"

namespace ironbench::train {

const char* to_string(lora_target target) {
  switch (target) {
    case lora_target::qkv: return "qkv";
    case lora_target::proj: return "proj";
    case lora_target::fc1: return "fc1";
    case lora_target::fc2: return "fc2";
  }
  return "?";
}

std::string lora_spec::targets_text() const {
  std::string text;
  for (const auto t : targets) text += (text.empty() ? "" : ",") + std::string(to_string(t));
  return text;
}

std::vector<lora_target> parse_lora_targets(const std::string& text) {
  std::vector<lora_target> targets;
  const auto add = [&](lora_target t) {
    if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
  };
  std::stringstream in(text);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name == "all") {
      for (const auto t : {lora_target::qkv, lora_target::proj, lora_target::fc1, lora_target::fc2}) add(t);
    } else if (name == "qkv" || name == "q_proj" || name == "k_proj" || name == "v_proj" || name == "c_attn") {
      add(lora_target::qkv);
    } else if (name == "proj" || name == "o_proj" || name == "out_proj") {
      add(lora_target::proj);
    } else if (name == "fc1" || name == "up_proj" || name == "c_fc") {
      add(lora_target::fc1);
    } else if (name == "fc2" || name == "down_proj" || name == "c_proj") {
      add(lora_target::fc2);
    } else {
      throw usage_error(fmt::format("unknown LoRA target module '{}' (use qkv, proj, fc1, fc2 or all)", name));
    }
  }
  if (targets.empty()) throw usage_error("--lora-targets names no module (use qkv, proj, fc1, fc2 or all)");
  return targets;
}

std::pair<std::int64_t, std::int64_t> lora_target_dims(const gpt_shape& s, lora_target target) {
  switch (target) {
    case lora_target::qkv: return {s.d_model, 3 * s.d_model};
    case lora_target::proj: return {s.d_model, s.d_model};
    case lora_target::fc1: return {s.d_model, s.d_ff};
    case lora_target::fc2: return {s.d_ff, s.d_model};
  }
  return {0, 0};
}

std::int64_t lora_trainable_parameters(const gpt_shape& shape, const lora_spec& spec) {
  std::int64_t per_block = 0;
  for (const auto t : spec.targets) {
    const auto [in, out] = lora_target_dims(shape, t);
    per_block += spec.rank * (in + out);
  }
  return shape.layers * per_block;
}

}  // namespace ironbench::train
