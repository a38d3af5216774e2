#!/usr/bin/env bash
# Fuzzes the Prometheus /metrics parser (src/serve/metrics/prometheus_text.cpp) with libFuzzer
# under AddressSanitizer and UndefinedBehaviorSanitizer for RUNS inputs (default 10 million),
# from its seed corpus (tests/fuzz/corpus/prometheus_text: serve-sim's, vLLM, SGLang,
# llama.cpp style expositions). A wrapper of scripts/fuzz.sh, which fuzzes every parser
# (docs/reliability.md).
#   bench/fuzz_prometheus.sh [RUNS] [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/scripts/fuzz.sh" --runs "${1:-10000000}" --build-dir "${2:-$root/build/fuzz}" prometheus_text
