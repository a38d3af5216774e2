#include "serve/sim/sim_metrics.hpp"

#include <fmt/format.h>

namespace ironbench::serve {

void sim_histogram::add(double seconds) {
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (seconds <= bounds[i]) {
      ++buckets[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string sim_metrics_text(const sim_metrics_state& s) {
  const auto labels = fmt::format(R"(engine="0",model_name="{}")", escape_label_value(s.model));
  std::string out;
  const auto family = [&](const char* name, const char* type, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  const auto sample = [&](const std::string& name, const std::string& extra, double value) {
    out += fmt::format("{}{{{}{}}} {}\n", name, labels, extra, value);
  };
  family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.");
  sample("vllm:num_requests_running", "", static_cast<double>(s.running));
  family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.");
  sample("vllm:num_requests_waiting", "", static_cast<double>(s.waiting));
  family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.");
  sample("vllm:kv_cache_usage_perc", "", s.kv_usage);
  const auto& c = s.counters;
  family("vllm:prompt_tokens", "counter", "Number of prefill tokens processed.");
  sample("vllm:prompt_tokens_total", "", static_cast<double>(c.prompt_tokens));
  family("vllm:generation_tokens", "counter", "Number of generation tokens processed.");
  sample("vllm:generation_tokens_total", "", static_cast<double>(c.generation_tokens));
  family("vllm:num_preemptions", "counter", "Cumulative number of preemption from the engine.");
  sample("vllm:num_preemptions_total", "", 0);
  family("vllm:prefix_cache_queries", "counter", "Prefix cache queries, in terms of number of queried tokens.");
  sample("vllm:prefix_cache_queries_total", "", static_cast<double>(c.prefix_queries));
  family("vllm:prefix_cache_hits", "counter", "Prefix cache hits, in terms of number of cached tokens.");
  sample("vllm:prefix_cache_hits_total", "", static_cast<double>(c.prefix_hits));
  family("vllm:request_success", "counter", "Count of successfully processed requests.");
  sample("vllm:request_success_total", R"(,finished_reason="length")", static_cast<double>(c.succeeded));
  const auto histogram = [&](const char* name, const char* help, const sim_histogram& h) {
    family(name, "histogram", help);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < sim_histogram::bounds.size(); ++i) {
      cumulative += h.buckets[i];
      sample(fmt::format("{}_bucket", name), fmt::format(R"(,le="{}")", sim_histogram::bounds[i]),
             static_cast<double>(cumulative));
    }
    sample(fmt::format("{}_bucket", name), R"(,le="+Inf")", static_cast<double>(h.count));
    sample(fmt::format("{}_count", name), "", static_cast<double>(h.count));
    sample(fmt::format("{}_sum", name), "", h.sum);
  };
  histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", c.e2e_latency);
  histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", c.queue_time);
  histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.",
            c.prefill_time);
  histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", c.decode_time);
  return out;
}

std::string sim_gpu_exporter_text(const sim_gpu_exporter& e, double seconds, bool busy, double memory_used_fraction) {
  constexpr double total_mib = 80 * 1024;
  const double used_mib = total_mib * memory_used_fraction;
  const double utilization = busy ? 100 : 0;
  std::string out;
  const auto family = [&](const char* name, const char* type, const char* help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  if (e.kind == "dcgm") {
    const auto gauge = [&](const char* name, const char* type, const char* help, double value) {
      family(name, type, help);
      for (int g = 0; g < e.gpus; ++g) {
        out += fmt::format(
            R"({}{{gpu="{}",UUID="GPU-00000000-0000-0000-0000-{:012d}",device="nvidia{}",modelName="ironbench-sim",Hostname="serve-sim"}} {})"
            "\n",
            name, g, g, g, value);
      }
    };
    gauge("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", 1980);
    gauge("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", 2619);
    gauge("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", e.power_w);
    gauge("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
          e.power_w * seconds * 1e3);
    gauge("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", utilization);
    gauge("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", total_mib - used_mib);
    gauge("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", used_mib);
  } else if (e.kind == "amd") {
    const auto gauge = [&](const char* name, const char* help, const std::string& extra, double value) {
      if (extra.empty() || extra.find("system") != std::string::npos) family(name, "gauge", help);
      for (int g = 0; g < e.gpus; ++g) {
        out += fmt::format(
            R"({}{{card_model="ironbench-sim",gpu_id="{}",gpu_uuid="sim-{:04d}",hostname="serve-sim",serial_number="SIM{:04d}"{}}} {})"
            "\n",
            name, g, g, g, extra, value);
      }
    };
    gauge("gpu_power_usage", "GPU power usage in Watts", "", e.power_w);
    gauge("gpu_energy_consumed", "Accumulated energy consumed by the GPU in Micro Jules (uJ)", "",
          e.power_w * seconds * 1e6);
    gauge("gpu_gfx_activity", "Graphics engine usage percentage (0 - 100)", "", utilization);
    gauge("gpu_used_vram", "Total VRAM memory used in MB", "", used_mib);
    gauge("gpu_free_vram", "Total VRAM memory free in MB", "", total_mib - used_mib);
    gauge("gpu_clock", "Clock measure of the GPU in Mhz", R"(,clock_type="system")", 2100);
    gauge("gpu_clock", "Clock measure of the GPU in Mhz", R"(,clock_type="memory")", 1300);
  }
  return out;
}

}  // namespace ironbench::serve
