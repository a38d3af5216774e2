#include "train/train_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "core/axis.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace ironbench::train {

std::vector<std::int64_t> parse_train_counts(const std::string& name, const std::string& text) {
  const auto target = core::integer_axis(name, {1}, name);
  std::vector<std::int64_t> values;
  for (const auto& v : core::parse_axis_values(target, core::parse_axis_override(name + "=" + text))) {
    values.push_back(std::get<std::int64_t>(v));
  }
  return values;
}

std::vector<std::int64_t> parse_mlp_widths(const std::string& text) {
  std::vector<std::int64_t> widths;
  std::size_t from = 0;
  while (from <= text.size()) {
    const auto to = std::min(text.find('-', from), text.size());
    widths.push_back(parse_integer(text.substr(from, to - from), "--widths"));
    from = to + 1;
  }
  return widths;
}

train_settings settings_for(const train_request& r, bool on_gpu) {
  train_settings s = r.settings;
  if (r.workload == "mlp") {
    s.kind = workload::mlp;
    s.mlp_widths = parse_mlp_widths(r.widths);
  } else if (r.workload == "gpt" || r.workload == "lora") {
    s.kind = r.workload == "gpt" ? workload::gpt : workload::lora;
    if (r.model == "custom") {
      s.shape = gpt_shape{};
    } else if (auto preset = find_gpt_preset(r.model)) {
      s.shape = *preset;
    } else {
      throw usage_error(
          fmt::format("unknown --model '{}' (presets: small, medium, large, xl, 1.5b, 3b, 7b, 13b; "
                      "or custom with --layers --heads --d-model --d-ff --seq-len)",
                      r.model));
    }
    const bool custom = r.layers || r.heads || r.d_model || r.d_ff || r.seq_len || r.vocabulary;
    if (custom && r.model != "custom") s.shape.name = s.shape.name + "+custom";
    if (r.layers) s.shape.layers = r.layers;
    if (r.heads) s.shape.heads = r.heads;
    if (r.d_model) s.shape.d_model = r.d_model;
    if (r.d_ff) s.shape.d_ff = r.d_ff;
    if (r.seq_len) s.shape.seq_len = r.seq_len;
    if (r.vocabulary) s.shape.vocabulary = r.vocabulary;
    if (s.kind == workload::lora) {
      s.lora.rank = r.lora_rank;
      s.lora.alpha = r.lora_alpha;
      s.lora.targets = parse_lora_targets(r.lora_targets);
    }
  } else {
    throw usage_error(fmt::format("unknown workload '{}' (use mlp, gpt or lora)", r.workload));
  }
  s.dtype = r.dtype == "auto" ? (on_gpu ? "bf16" : "fp32") : r.dtype;
  s.fused_optimizer = r.fused_optimizer;
  return s;
}

void check_batches(const std::vector<std::int64_t>& batches) {
  for (const auto b : batches) {
    if (b < 1) throw usage_error(fmt::format("--batch must be >= 1 (got {})", b));
  }
}

void check_scaling(const std::vector<std::int64_t>& scaling, int world_size) {
  for (const auto n : scaling) {
    if (n < 1 || n > world_size) {
      throw usage_error(fmt::format("--scaling {}: the job has {} rank{} (start it with mpirun -np {})", n, world_size,
                                    world_size == 1 ? "" : "s", *std::max_element(scaling.begin(), scaling.end())));
    }
  }
}

device_choice choose_train_device(const std::string& text, int gpus, int default_gpu, const std::string& torch_detail) {
  if (text == "auto") return gpus > 0 ? device_choice{true, default_gpu} : device_choice{};
  if (text == "cpu") return {};
  if (text == "cuda" || text == "gpu" || text.rfind("cuda:", 0) == 0 || text.rfind("hip:", 0) == 0) {
    if (gpus == 0) throw usage_error(fmt::format("--device {}: libtorch sees no GPU here ({})", text, torch_detail));
    const auto colon = text.find(':');
    const int index =
        colon == std::string::npos ? default_gpu : static_cast<int>(parse_integer(text.substr(colon + 1), "--device"));
    if (index < 0 || index >= gpus) throw usage_error(fmt::format("--device {}: there are {} GPUs", text, gpus));
    return {true, index};
  }
  throw usage_error(fmt::format("unknown --device '{}' (use auto, cpu, cuda or cuda:N)", text));
}

void check_dtype(const train_settings& settings, const device_choice& device) {
  if (settings.dtype == "fp16" && !device.gpu) throw usage_error("--dtype fp16 needs a GPU; use bf16 on CPUs");
}

core::device_info measured_device(const std::vector<core::device_info>& devices, const device_choice& device,
                                  bool hip) {
  const std::string wanted = device.gpu ? fmt::format("{}:{}", hip ? "hip" : "cuda", device.index) : "cpu";
  for (const auto& d : devices) {
    if (d.id == wanted || (!device.gpu && d.kind == core::device_kind::cpu)) return d;
  }
  core::device_info fallback;
  fallback.id = wanted;
  fallback.name = wanted;
  fallback.kind = device.gpu ? core::device_kind::cuda : core::device_kind::cpu;
  fallback.index = device.gpu ? device.index : 0;
  return fallback;
}

}  // namespace ironbench::train
