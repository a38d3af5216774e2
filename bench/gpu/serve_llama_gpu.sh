#!/usr/bin/env bash
# A real serving engine on a GPU lease (docs/gpu.md): llama.cpp's llama-server, built elsewhere
# for sm_90 and carried as CARRY/peers/llama-server.tar.xz, serves a random-weight Llama model
# made here (bench/gpu/make_random_gguf.py, the carried gguf wheel); `ironbench serve` sweeps
# its concurrency with --gpu-telemetry on while nvidia-smi samples the power every 100 ms. Then
# bench/gpu/llama_serve_compare.py puts side by side, per point and over the run:
#   - energy per output token: nvidia-smi's power integrated over each point's window and
#     divided by the output tokens ironbench counted, against ironbench's own (NVML), and the
#     ratio (agreement wanted within 5 %);
#   - TTFT and TPOT as ironbench measured them against the server's own timings (its /metrics
#     counters over the point, and one request's `timings`).
# Everything goes to OUTDIR (summary.txt, summary.json, the runs' JSON, logs). The whole run is
# bounded (TIME_LIMIT, 240 s by default; every step has its own timeout; a point that would
# not end in time is not started) and the server and the sampler are always stopped. Exit 0:
# every point measured and compared; 1: something missing or failed (one line says what).
#
# Usage: bench/gpu/serve_llama_gpu.sh OUTDIR
# Environment:
#   IRONBENCH     the ironbench binary (default build/gpu/ironbench; unpacked from
#                 CARRY/prebuilt.tar.xz with its dependency bundle when it is not there)
#   CARRY         the carried folder (default .gpu)
#   PRESET        model preset of make_random_gguf.py: 8b (default), 3b, 1b, tiny
#   CONCURRENCIES the points, one `ironbench serve` each (default "1 4 16")
#   POINT_SECONDS about how long each point sends requests (default 25)
#   INPUT_LEN, OUTPUT_LEN  random prompt tokens and max_tokens (default 256, 128)
#   TIME_LIMIT    the bound of the whole script in seconds (default 240)
#   LLAMA_SERVER  a llama-server binary to use instead of the carried one (tests on a CPU)
#   NGL           layers on the GPU (default 999: all)
#   PORT          the server's port on 127.0.0.1 (default 8093)
set -uo pipefail
(($# == 1)) || { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 2
out=$1
mkdir -p "$out" || { echo "serve_llama_gpu: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
carry=${CARRY:-$repo/.gpu}
ironbench=${IRONBENCH:-$repo/build/gpu/ironbench}
preset=${PRESET:-8b}
concurrencies=${CONCURRENCIES:-1 4 16}
point_s=${POINT_SECONDS:-25}
input_len=${INPUT_LEN:-256} output_len=${OUTPUT_LEN:-128}
port=${PORT:-8093} ngl=${NGL:-999}
limit=${TIME_LIMIT:-240}
work=${TMPDIR:-/tmp}/ironbench-llama-gpu
started=$SECONDS
log=$out/serve_llama_gpu.log
: >"$log"

say() { echo "serve_llama_gpu: $*" | tee -a "$log" >&2; }
die() { say "$*"; exit 1; }
left() { echo $((limit - (SECONDS - started))); }
# A step's timeout into T: its own cap, or what is left of the whole run less a reserve for
# what comes after it.
budget() {
  T=$1
  local rest=$(($(left) - ${2:-15}))
  ((rest < T)) && T=$rest
  ((T >= 1)) || die "out of time (TIME_LIMIT ${limit} s) before ${3:-the next step}"
}

server_pid='' smi_pid=''
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
  [[ -n $smi_pid ]] && kill "$smi_pid" 2>/dev/null
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$server_pid" 2>/dev/null
  fi
  wait 2>/dev/null
}
trap cleanup EXIT
trap 'die "interrupted"' INT TERM

# --- What must be here ------------------------------------------------------------------------
[[ -n ${EPOCHREALTIME:-} ]] || die "bash ${BASH_VERSION} has no EPOCHREALTIME (bash 5 needed)"
for tool in python3 curl tar xz timeout; do
  command -v "$tool" >/dev/null || die "no $tool on this machine"
done
command -v nvidia-smi >/dev/null || [[ -n ${LLAMA_SERVER:-} ]] || die "no nvidia-smi: not a GPU machine (LLAMA_SERVER= runs on a CPU)"
[[ -n ${LLAMA_SERVER:-} || -f $carry/peers/llama-server.tar.xz ]] ||
  die "no $carry/peers/llama-server.tar.xz (built as docs/gpu.md says: 'A real serving engine on the GPU')"
gguf_wheel='' yaml_wheel=''
for f in "$carry"/wheels/gguf-*.whl; do [[ -f $f ]] && gguf_wheel=$f; done
for f in "$carry"/wheels/[Pp][Yy][Yy][Aa][Mm][Ll]-*.whl; do [[ -f $f ]] && yaml_wheel=$f; done
[[ -n $gguf_wheel ]] || die "no carried gguf wheel in $carry/wheels (docs/gpu.md: 'A real serving engine on the GPU')"
python3 -c 'import numpy' 2>/dev/null || die "python3 has no numpy (make_random_gguf.py needs it)"
mkdir -p "$work" || die "cannot create $work"

# The CUDA libraries as this machine has them: the toolkit's, then PyTorch's wheel (as lease.sh).
site=$(timeout 20 python3 -c 'import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))' 2>/dev/null)
extra=/usr/local/cuda/lib64
[[ -n $site ]] && extra+=:$site/nvidia/cu13/lib:$site/torch/lib:$site/nvidia/nccl/lib  # NCCL: ironbench links it
export LD_LIBRARY_PATH=$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# --- ironbench (unpacked as bench/gpu/lease.sh does, when no call did it yet) ------------------
lease=$repo/build/lease
if [[ -z ${IRONBENCH:-} && ! -x $ironbench && -f $carry/prebuilt.tar.xz ]]; then
  say "unpacking the carried ironbench"
  budget 60
  timeout "$T" tar -xJf "$carry/prebuilt.tar.xz" -C "$repo" || die "cannot unpack $carry/prebuilt.tar.xz"
  built_at=$(cat "$carry/prebuilt.source_dir" 2>/dev/null)
  if [[ -n $built_at && $built_at != "$repo" && ! -e $built_at ]]; then
    mkdir -p "$(dirname "$built_at")" && ln -s "$repo" "$built_at"
  fi
fi
[[ -x $ironbench ]] || die "no ironbench at $ironbench (set IRONBENCH, or carry prebuilt.tar.xz: bench/gpu/prepare_carry.sh)"
if ! "$ironbench" --version >/dev/null 2>&1; then
  if [[ ! -r $lease/deps/env.sh && -f $carry/ironbench-deps.tar ]]; then
    say "unpacking the dependency bundle"
    rm -rf "$lease/deps"
    budget 90
    timeout "$T" "$repo/scripts/setup.sh" --prefix "$lease/deps" --from "$carry/ironbench-deps.tar" >>"$log" 2>&1 ||
      die "the dependency bundle could not be unpacked: $(tail -n 1 "$log")"
  fi
  # shellcheck source=/dev/null
  [[ -r $lease/deps/env.sh ]] && . "$lease/deps/env.sh"
  if [[ -f $carry/syslibs.tar.xz ]] && ! "$ironbench" --version >/dev/null 2>&1; then
    rm -rf "$lease/carried-syslibs" && mkdir -p "$lease/syslibs" "$lease/carried-syslibs"
    tar -xJf "$carry/syslibs.tar.xz" -C "$lease/carried-syslibs" --strip-components=1
    for lib in "$lease"/carried-syslibs/*.so*; do
      ldconfig -p | grep "^[[:space:]]*$(basename "$lib") " >/dev/null || cp "$lib" "$lease/syslibs/"
    done
    export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$lease/syslibs
  fi
fi
why=$("$ironbench" --version 2>&1) || die "ironbench does not run here: $(echo "$why" | tail -n 1)"
say "ironbench: $why"

# --- llama-server --------------------------------------------------------------------------------
if [[ -n ${LLAMA_SERVER:-} ]]; then
  server=$LLAMA_SERVER
else
  rm -rf "$work/llama-server"
  budget 60
  timeout "$T" tar -xJf "$carry/peers/llama-server.tar.xz" -C "$work" || die "cannot unpack llama-server.tar.xz"
  server=$work/llama-server/llama-server
fi
[[ -x $server ]] || die "no llama-server binary at $server"
missing=$(ldd "$server" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
[[ -z $missing ]] || die "llama-server lacks libraries here: $missing(LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"
"$server" --version >"$out/llama-server-version.txt" 2>&1 || die "llama-server does not start: $(tail -n 1 "$out/llama-server-version.txt")"
say "llama-server: $(grep -m1 -i 'version' "$out/llama-server-version.txt")"

# --- The model -------------------------------------------------------------------------------------
site_dir=$work/site
if ! PYTHONPATH=$site_dir python3 -c 'import gguf' 2>/dev/null; then
  # gguf imports yaml: PyYAML's wheel (CPython 3.12) only where this python has no yaml.
  wheels=("$gguf_wheel")
  python3 -c 'import yaml' 2>/dev/null || wheels+=("$yaml_wheel")
  [[ -n ${wheels[-1]} ]] || die "python3 has no yaml and $carry/wheels no PyYAML wheel"
  rm -rf "$site_dir"
  budget 60
  timeout "$T" python3 -m pip install -q --no-index --no-deps --target "$site_dir" "${wheels[@]}" >>"$log" 2>&1 ||
    die "pip could not install the carried wheels: $(tail -n 1 "$log")"
  PYTHONPATH=$site_dir python3 -c 'import gguf' 2>>"$log" || die "gguf does not import: $(tail -n 1 "$log")"
fi
# tmpfs when it has room (no disk in the way), else the temporary folder.
models=$work
shm_free=$(df -k --output=avail /dev/shm 2>/dev/null | tail -n 1 | tr -d ' ')
[[ -n $shm_free ]] && ((shm_free > 24 * 1024 * 1024)) && models=/dev/shm/ironbench-llama && mkdir -p "$models"
model=$models/random-$preset.gguf
if [[ -f $model.done ]]; then
  say "model: $model (made by an earlier call)"
else
  rm -f "$model" "$model.done"
  say "making the random $preset model in $models"
  budget 150 60 "making the model"
  PYTHONPATH=$site_dir timeout "$T" python3 "$repo/bench/gpu/make_random_gguf.py" "$model" --preset "$preset" \
    >"$out/make_random_gguf.log" 2>&1 || die "make_random_gguf.py failed: $(tail -n 1 "$out/make_random_gguf.log")"
  touch "$model.done"
  say "$(tail -n 1 "$out/make_random_gguf.log")"
fi

# --- The server ------------------------------------------------------------------------------------
max_c=1
for c in $concurrencies; do ((c > max_c)) && max_c=$c; done
alias_name=ironbench-random-$preset
slot_ctx=$(((input_len + output_len) * 2 + 64))
curl -s -m 2 "http://127.0.0.1:$port/health" >/dev/null && die "port $port is taken: set PORT"
server_args=(-m "$model" -a "$alias_name" --host 127.0.0.1 --port "$port" -ngl "$ngl" -np "$max_c"
  -c $((slot_ctx * max_c)) --metrics --no-webui --cache-ram 0 --fit off)
[[ $ngl != 0 ]] && server_args+=(-fa on)
echo "${server##*/} ${server_args[*]}" >"$out/llama-server.cmd"
"$server" "${server_args[@]}" >"$out/llama-server.log" 2>&1 &
server_pid=$!
say "llama-server started (pid $server_pid): ${server_args[*]}"
load_started=$SECONDS
budget 120 60 "the server's health check"
health_cap=$T
until curl -sf -m 2 "http://127.0.0.1:$port/health" >/dev/null; do
  kill -0 "$server_pid" 2>/dev/null || die "llama-server exited while loading: $(grep -iE 'error|fail' "$out/llama-server.log" | tail -n 1)"
  ((SECONDS - load_started > health_cap)) && die "llama-server not healthy after ${health_cap} s (see $out/llama-server.log)"
  sleep 0.5
done
say "llama-server ready in $((SECONDS - load_started)) s"
grep -m3 -iE 'offloaded|CUDA0 model buffer|using device' "$out/llama-server.log" | sed 's/^/serve_llama_gpu:   /' | tee -a "$log" >&2

# One request's own timings at concurrency 1, as the server reports them: the second of two
# (the first warms the server up).
for seed in 7 8; do
  probe=$(python3 -c "import json,random; r=random.Random($seed); print(json.dumps({'model': '$alias_name',
  'prompt': [r.randrange(100, 32000) for _ in range($input_len)], 'max_tokens': $output_len, 'ignore_eos': True}))")
  budget 60 60 "the probe request"
  curl -sf -m "$T" -H 'Content-Type: application/json' -d "$probe" \
    "http://127.0.0.1:$port/v1/completions" >"$out/probe.json" || die "the probe request failed (see $out/llama-server.log)"
done

# --- The power sampler -------------------------------------------------------------------------
if command -v nvidia-smi >/dev/null; then
  fields=timestamp,index,power.draw
  nvidia-smi --query-gpu=power.draw.instant --format=csv,noheader >/dev/null 2>&1 && fields+=,power.draw.instant
  nvidia-smi --query-gpu=$fields --format=csv -lms 100 >"$out/nvidia-smi-power.csv" 2>"$out/nvidia-smi.err" &
  smi_pid=$!
  sleep 0.5
  kill -0 "$smi_pid" 2>/dev/null || die "nvidia-smi's sampler stopped: $(tail -n 1 "$out/nvidia-smi.err")"
fi

# --- The points --------------------------------------------------------------------------------
# Each point's requests: about POINT_SECONDS of them, from the latest measured request time
# (the probe's, then the previous point's mean E2EL, taken to grow as the square root of the
# concurrency: a point is rather shorter than longer). C warmup requests go first, unmeasured.
e2el_ms=$(python3 -c "import json; t=json.load(open('$out/probe.json')).get('timings', {});
print(max(1.0, t.get('prompt_ms', 0) + t.get('predicted_ms', 0)))") || die "the probe's answer has no timings: $(head -c 300 "$out/probe.json")"
previous_c=1
points=()
for c in $concurrencies; do
  n=$(python3 -c "import math; e=$e2el_ms*($c/$previous_c)**0.5; print(max(2*$c, min(4000, math.ceil($point_s*1000*$c/e))))")
  tag=c$c
  # A point that could not finish before the comparison's reserve is not started.
  point_cap=$((point_s * 3 + 30))
  (($(left) - 30 < point_cap)) && point_cap=$(($(left) - 30))
  if ((point_cap < point_s + 15)); then
    say "not reached (TIME_LIMIT ${limit} s): concurrency $c and above"
    break
  fi
  curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$out/metrics-$tag-before.txt"
  say "point: concurrency $c, $n requests (at most ${point_cap} s)"
  # stderr carries "serve: N requests ..." as a point starts; each line gets the wall clock.
  timeout -s INT -k 10 "$point_cap" "$ironbench" serve --base-url "http://127.0.0.1:$port" --endpoint /v1/completions \
    --model "$alias_name" --dataset-name random --random-input-len "$input_len" --random-output-len "$output_len" \
    --random-range-ratio 0 --ignore-eos --max-concurrency "$c" --request-rate inf --num-prompts "$n" --num-warmups "$c" \
    --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,99 --gpu-telemetry on --metrics-interval 1s \
    --progress-interval 5s --timeout 120s --seed "$c" --json "$out/serve-$tag.json" --no-save --tag engine=llama.cpp \
    >"$out/serve-$tag.txt" 2> >(while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done >"$out/serve-$tag.stderr")
  rc=$?
  curl -s -m 5 "http://127.0.0.1:$port/metrics" >"$out/metrics-$tag-after.txt"
  sleep 0.2  # the stamping loop drains
  if [[ ! -s $out/serve-$tag.json ]]; then
    say "ironbench serve wrote no JSON at concurrency $c (exit $rc): $(tail -n 2 "$out/serve-$tag.stderr" | cut -d' ' -f2- | tr '\n' ' ')"
    break
  fi
  ((rc == 0)) || say "ironbench serve exited $rc at concurrency $c (its verdict is in serve-$tag.txt)"
  points+=("$c")
  e2el_ms=$(python3 -c "import json; d=json.load(open('$out/serve-$tag.json'))
print(max([json.loads(c['notes']['result']).get('mean_e2el_ms', 0) for c in d['cases']] + [1]))")
  previous_c=$c
  if ! kill -0 "$server_pid" 2>/dev/null; then
    say "llama-server died during the point at concurrency $c: $(tail -n 1 "$out/llama-server.log")"
    break
  fi
done
[[ -n $smi_pid ]] && kill "$smi_pid" 2>/dev/null && wait "$smi_pid" 2>/dev/null
smi_pid=''
((${#points[@]} > 0)) || die "no point was measured"

# --- Side by side --------------------------------------------------------------------------------
budget 30 0 "the comparison"
timeout "$T" python3 "$repo/bench/gpu/llama_serve_compare.py" "$out" "${points[@]}" |
  tee "$out/summary.txt"
rc=${PIPESTATUS[0]}
measured=$(wc -w <<<"${points[*]}") wanted=$(wc -w <<<"$concurrencies")
((measured < wanted)) && say "measured $measured of $wanted points" && rc=1
say "done in $((SECONDS - started)) s (exit $rc)"
exit "$rc"
