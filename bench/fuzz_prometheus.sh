#!/usr/bin/env bash
# Fuzzes the Prometheus /metrics parser (src/serve/metrics/prometheus_text.cpp) with libFuzzer
# under AddressSanitizer and UndefinedBehaviorSanitizer, starting from real expositions
# (serve-sim's, and vLLM / SGLang / llama.cpp style samples), for RUNS inputs (default 10
# million). Needs clang (clang++-16 or clang++) with its fuzzer runtime.
#   bench/fuzz_prometheus.sh [RUNS] [WORK_DIR]
set -euo pipefail
runs=${1:-10000000}
work=${2:-/tmp/ironbench-fuzz-prometheus}
root=$(cd "$(dirname "$0")/.." && pwd)
cxx=$(command -v clang++-16 || command -v clang++ || true)
[[ -n "$cxx" ]] || { echo "fuzz_prometheus: no clang++ (apt install clang)" >&2; exit 1; }
mkdir -p "$work/corpus"
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I "$root/src" "$root/tests/fuzz/prometheus_text_fuzz.cpp" "$root/src/serve/metrics/prometheus_text.cpp" \
  -lfmt -o "$work/prometheus_text_fuzz"
cat > "$work/corpus/vllm.txt" << 'TEXT'
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"} 12.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.4375
vllm:generation_tokens_total{engine="0",model_name="m"} 7.557572e+06
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf",model_name="m"} 1027 1395066363000
vllm:request_success_total{finished_reason="length",model_name="a \"quoted\" \\ name\n"} 3
TEXT
cat > "$work/corpus/others.txt" << 'TEXT'
sglang:token_usage{model_name="m"} 0.28
llamacpp:requests_processing 0
tgi_request_generated_tokens_sum 10 # {trace_id="x"} 1.0
nv_trt_llm_request_metrics{model="tensorrt_llm",request_type="active",version="1"} NaN
x -Inf
# EOF
TEXT
echo "fuzz_prometheus: $runs inputs"
started=$(date +%s)
"$work/prometheus_text_fuzz" -runs="$runs" -max_len=4096 -print_final_stats=1 "$work/corpus" 2>&1 | tail -15
echo "fuzz_prometheus: $runs inputs without a finding in $(( $(date +%s) - started )) s"
