// `ironbench serve`'s flags: as typed, registered on a command (or an experiment step), and
// turned into the sweep's settings.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "report/run_outputs.hpp"
#include "serve/sweep/serve_sweep.hpp"

namespace ironbench::cli {

// The flags as typed; the sweep settings are made from them (to_settings).
struct serve_arguments {
  serve::sweep_settings sweep;
  std::vector<std::string> base_urls;
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string max_concurrency, request_rate = "inf";
  std::string percentile_metrics = "ttft,tpot,itl", metric_percentiles = "99";
  std::vector<std::string> goodput;
  std::string extra_body, balance = "round-robin", receive_time = "kernel";
  std::string timeout = "600s", stall_timeout = "120s";
  std::string max_response_bytes = "64M";
  std::string max_kept_text_bytes = "256M";
  std::string progress_interval;  ///< "": 1 s on a terminal, 10 s otherwise
  std::string metrics_interval = "1s";
  std::string duration, grace_period;                                ///< --duration, --grace-period ("": none, 30 s)
  std::string ramp_up_strategy, ramp_up_start_rps, ramp_up_end_rps;  ///< "": no ramp-up
  std::string backend = "auto", inputs_per_request = "1", image_size;
  std::string lora_modules;  ///< --lora-modules as typed
  std::string lora_by = "auto";
  std::string slo, search, gpu_telemetry = "auto";
  serve::search_settings search_bounds;
  std::string search_probe_duration = "60s", search_estimate_duration = "10s";
  bool num_prompts_given = false, search_start_given = false;  ///< typed on the command line
  bool keep_past_saturation = false;
  bool no_stream = false, insecure = false, no_server_metrics = false;
  report::output_options outputs;
};

/// The sweep's settings from the flags; usage_error for a bad value.
[[nodiscard]] serve::sweep_settings to_settings(const serve_arguments& a);

/// Registers every flag of `serve` on `c`, writing into `a`.
void add_options(CLI::App& c, serve_arguments& a);

/// Registers the flags that judge and watch each point (limits, verdict bounds, --slo and
/// --search, /metrics and GPU telemetry, TLS, --receive-time); part of add_options
/// (serve_judging_options.cpp).
void add_judging_options(CLI::App& c, serve_arguments& a);

}  // namespace ironbench::cli
