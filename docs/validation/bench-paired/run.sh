#!/usr/bin/env bash
# The paired-bench validation on the H200 (issue 26): builds rl-train, then three benches and an
# auto-target A/A with the zcuda of branch `bench`; everything to $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
export LD_LIBRARY_PATH=$here/lib
zcuda=$here/zcuda
chmod +x "$zcuda" "$here/delayed.sh"
{ date -u; uptime; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; "$zcuda" --version; } > "$out/machine.txt" 2>&1
t0=$(date +%s)
RL_TRAIN_STEPS=build scripts/validate-workload.sh "$out/workload" > "$out/build.log" 2>&1
echo "build rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
prog=$PWD/build/rl-train-cuda/rl-train
[ -x "$prog" ] || { echo "no rl-train"; tail -30 "$out/build.log"; exit 1; }
bench() {  # bench NAME LIMIT ARGS...
  local name=$1 limit=$2; shift 2
  local s=$(date +%s)
  timeout "$limit" "$zcuda" --home "$out/home" --json bench "$@" > "$out/$name.json" 2> "$out/$name.err"
  local rc=$?
  echo "$name rc=$rc in $(( $(date +%s) - s )) s: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["comparison"]["summary"])' "$out/$name.json" 2>&1)" | tee -a "$out/summary.txt"
}
m='overall_sps ([0-9.]+)'
bench bench-aa-paired 200 --no-tf32-override --runs 8 --metric "$m" --warmup 2 --a-runtime native --b-runtime native \
  --a-label default --b-label default -- "$prog" --device cuda --iterations 12
bench bench-launch-blocking 240 --no-tf32-override --runs 8 --metric "$m" --warmup 2 --a-runtime native --b-runtime native \
  --a-label default --b-label launch-blocking --b-env CUDA_LAUNCH_BLOCKING=1 -- "$prog" --device cuda --iterations 12
# The known delay, measured on its own: the wrapper with 0.15 s against 0 s, 30 starts each.
python3 - "$here/delayed.sh" > "$out/delay.txt" 2>&1 <<'PY'
import os, statistics, subprocess, sys, time
def wall(delay):
    env = dict(os.environ, BENCH_DELAY=delay)
    s = time.perf_counter(); subprocess.run(["sh", sys.argv[1], "true"], env=env, check=True); return time.perf_counter() - s
for d in ("0", "0.15"): wall(d)
a = [wall("0") for _ in range(30)]; b = [wall("0.15") for _ in range(30)]
print(f"wrapper, BENCH_DELAY=0: median {statistics.median(a):.6f} s (min {min(a):.6f}, max {max(a):.6f})")
print(f"wrapper, BENCH_DELAY=0.15: median {statistics.median(b):.6f} s (min {min(b):.6f}, max {max(b):.6f})")
print(f"added per run: {statistics.median(b) - statistics.median(a):.6f} s")
PY
cat "$out/delay.txt" | tee -a "$out/summary.txt"
bench bench-delay-wall 200 --no-tf32-override --runs 10 --warmup 0 --a-runtime native --b-runtime native \
  --a-label no-delay --b-label delay-0.15s --a-env BENCH_DELAY=0 --b-env BENCH_DELAY=0.15 -- "$here/delayed.sh" "$prog" --device cuda --iterations 12
bench bench-aa-auto 110 --no-tf32-override --runs auto --target 2 --max-runs 12 --metric "$m" --warmup 2 --a-runtime native \
  --b-runtime native -- "$prog" --device cuda --iterations 12
for f in "$out"/bench-*.json; do "$zcuda" bench --from-record "$f" > "${f%.json}.txt" 2>&1; done
echo "total $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
