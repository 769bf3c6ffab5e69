#!/usr/bin/env bash
# Third call: the A/A again, after two throwaway runs of rl-train so the first pair does not
# carry the fresh machine's cold start; record and its recomputation to $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
mkdir -p "$out/r"
export LD_LIBRARY_PATH=$here/lib
zcuda=$here/zcuda
chmod +x "$zcuda"
prog=$PWD/build/rl-train-cuda/rl-train
t0=$(date +%s)
if [ ! -x "$prog" ]; then RL_TRAIN_STEPS=build scripts/validate-workload.sh "$out/r/workload" > "$out/r/build.log" 2>&1; fi
echo "build $(( $(date +%s) - t0 )) s" > "$out/r/summary.txt"
{ date -u; uptime; nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader; "$zcuda" --version; } > "$out/r/machine.txt" 2>&1
for i in 1 2; do "$prog" --device cuda --iterations 12 > "$out/r/warm-up-run-$i.txt" 2>&1; done
m='overall_sps ([0-9.]+)'
s=$(date +%s)
timeout 240 "$zcuda" --home "$out/r/home" --json bench --no-tf32-override --runs 8 --metric "$m" --warmup 2 \
  --a-runtime native --b-runtime native --a-label default --b-label default -- "$prog" --device cuda --iterations 12 \
  > "$out/r/bench-aa-warm.json" 2> "$out/r/bench-aa-warm.err"
echo "bench-aa-warm rc=$? in $(( $(date +%s) - s )) s" >> "$out/r/summary.txt"
"$zcuda" bench --from-record "$out/r/bench-aa-warm.json" > "$out/r/bench-aa-warm.txt" 2>&1
cp "$out/r/home"/state/bench/*.json "$out/r/bench-aa-warm.record.json" 2>/dev/null
cat "$out/r/summary.txt" "$out/r/bench-aa-warm.txt"
tar -czf "$out/all.tar.gz" -C "$out" r && rm -rf "$out/r"
