#!/usr/bin/env bash
# Second call: a throwaway warm-up run of rl-train, then the CUDA_LAUNCH_BLOCKING A/B
# again; everything packed into $OUT/all.tar.gz (the first call's files were more than came back).
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
mkdir -p "$out/r"
export LD_LIBRARY_PATH=$here/lib
zcuda=$here/zcuda
chmod +x "$zcuda" "$here/delayed.sh"
prog=$PWD/build/rl-train-cuda/rl-train
if [ ! -x "$prog" ]; then RL_TRAIN_STEPS=build scripts/validate-workload.sh "$out/r/workload" > "$out/r/build.log" 2>&1; fi
{ date -u; uptime; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader; } > "$out/r/machine.txt" 2>&1
"$prog" --device cuda --iterations 12 > "$out/r/warm-up-run.txt" 2>&1
bench() {  # bench NAME LIMIT ARGS...
  local name=$1 limit=$2; shift 2
  local s=$(date +%s)
  timeout "$limit" "$zcuda" --home "$out/r/home-$name" --json bench "$@" > "$out/r/$name.json" 2> "$out/r/$name.err"
  echo "$name rc=$? in $(( $(date +%s) - s )) s" >> "$out/r/summary.txt"
  "$zcuda" bench --from-record "$out/r/$name.json" > "$out/r/$name.txt" 2>&1
  cp "$out/r/home-$name"/state/bench/*.json "$out/r/$name.record.json" 2>/dev/null
}
m='overall_sps ([0-9.]+)'
bench bench-launch-blocking 100 --no-tf32-override --runs 8 --metric "$m" --warmup 2 --a-runtime native --b-runtime native \
  --a-label default --b-label launch-blocking --b-env CUDA_LAUNCH_BLOCKING=1 -- "$prog" --device cuda --iterations 12
cat "$out/r/summary.txt"; head -3 "$out"/r/*.txt | grep -v "^$"
tar -czf "$out/all.tar.gz" -C "$out" r && rm -rf "$out/r"
