// The options of `ironbench serve` that judge and watch each point rather than shape its
// requests: the ITL limit and verdict bounds, the SLO search, the server's /metrics and GPU
// telemetry, TLS and how token times are taken.
#include <CLI/CLI.hpp>

#include "cli/serve_options.hpp"
#include "serve/measures/latency_metrics.hpp"

namespace ironbench::cli {

void add_judging_options(CLI::App& c, serve_arguments& a) {
  auto& s = a.sweep;
  c.add_option("--max-itl-ms", s.limit.max_ms, "Report the highest throughput whose ITL statistic stays under this");
  c.add_option("--itl-limit-statistic", s.limit.statistic, "median, mean or p99 ... for --max-itl-ms")
      ->capture_default_str();
  c.add_option("--itl-limit-metric", s.limit.metric, "itl (pooled gaps) or tpot (per request) for --max-itl-ms")
      ->capture_default_str();
  c.add_option("--max-failed-share", s.max_failed_share,
               "A point in which a larger share of the requests failed is INVALID (0 to 1; 0: any failure)")
      ->capture_default_str();
  c.add_option("--max-lateness-ms", s.load.max_lateness_p99_ms, "p99 send lateness above which a point is INVALID")
      ->capture_default_str();
  c.add_option(
      "--slo", a.slo,
      "Service-level objectives for --search: " + serve::latency_metric_names(serve::metric_use::slo, ",", ":MS") +
          "[,p99|p90|median|mean] "
          "(p99 by default; no request may fail)");
  c.add_option("--search", a.search, "Find the highest rate or concurrency meeting --slo (bounded search)");
  c.add_option("--search-start", a.search_bounds.start,
               "First load of --search (rate: by default the capacity estimate's rate)")
      ->capture_default_str()
      ->each([&a](const std::string&) { a.search_start_given = true; });
  c.add_option("--search-max", a.search_bounds.max, "Highest load --search probes")->capture_default_str();
  c.add_option("--search-precision", a.search_bounds.precision,
               "--search rate stops when the limit is bracketed within this share")
      ->capture_default_str();
  c.add_option("--search-max-probes", a.search_bounds.max_probes, "Points --search measures at most")
      ->capture_default_str();
  c.add_option("--search-probe-duration", a.search_probe_duration,
               "Each --search probe sends about this long of requests at its load (e.g. 60s)")
      ->capture_default_str();
  c.add_option("--search-min-requests", a.search_bounds.min_probe_requests, "Requests a --search probe sends at least")
      ->capture_default_str();
  c.add_option("--search-estimate-concurrency", a.search_bounds.estimate_concurrency,
               "Requests in flight in the capacity estimate that starts --search")
      ->capture_default_str();
  c.add_option("--search-estimate-duration", a.search_estimate_duration,
               "The capacity estimate's burst lasts at most this long")
      ->capture_default_str();
  c.add_option("--gpu-telemetry", a.gpu_telemetry,
               "Watch this node's GPUs during each point (utilisation, memory, power, clocks; energy per output "
               "token): auto (when the server is on this node), on, off")
      ->capture_default_str();
  c.add_flag("--keep-past-saturation", a.keep_past_saturation,
             "Measure every point of a rising sweep even after it saturates (it is still marked)");
  c.add_option("--metrics-url", s.server_metrics.urls,
               "Prometheus /metrics to scrape during each point (repeat for several; default <base-url>/metrics); "
               "ROLE=URL (prefill=URL, decode=URL) labels a part of a disaggregated deployment")
      ->delimiter(',');
  c.add_option("--gpu-metrics-url", s.server_metrics.gpu_urls,
               "A GPU telemetry exporter's /metrics (NVIDIA DCGM exporter, AMD device metrics exporter) to scrape "
               "during each point: power, energy (per output token), utilisation, memory, clocks (repeatable)");
  c.add_option("--metrics-interval", a.metrics_interval, "How often /metrics is scraped")->capture_default_str();
  c.add_flag("--no-server-metrics", a.no_server_metrics, "Do not scrape the servers' /metrics");
  c.add_option("--ca-cert", s.load.ca_file, "https: PEM file of the CA certificates to verify the server with");
  c.add_flag("--insecure", a.insecure, "https: accept any server certificate (self-signed test endpoints)");
  c.add_option("--receive-time", a.receive_time,
               "Token times: kernel (the socket's receive stamp) or read (when the client reads them)")
      ->capture_default_str();
}

}  // namespace ironbench::cli
