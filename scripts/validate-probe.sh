#!/usr/bin/env bash
# Builds zcuda-probe alone (no zcuda packages needed) and runs every check natively, one process
# per check as `zcuda verify` does, twice (the first pass includes cold library loads).
# Usage: scripts/validate-probe.sh OUT_DIR        Produced docs/validation/nvidia-h200-native.json.
set -u
out=${1:?usage: validate-probe.sh OUT_DIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -srm)"
  echo "compiler: $(g++ --version | head -1)"
  echo "cmake: $(cmake --version 2>/dev/null | head -1)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  ldconfig -p | grep -E 'libcuda\.so|libcublas|libcusparse|libcufft\.so|libcudnn\.so|libnvidia-ml' | sed 's/^/ldconfig: /'
} > "$out/environment.txt" 2>&1

build_start=$(date +%s%N)
if cmake --preset probe-only > "$out/build.log" 2>&1 && cmake --build --preset probe-only -j"$(nproc)" >> "$out/build.log" 2>&1; then
  probe=build/probe-only/bin/zcuda-probe
else
  echo "cmake build failed; falling back to g++" >> "$out/build.log"
  mkdir -p build/direct
  g++ -std=c++23 -O2 -o build/direct/zcuda-probe src/probe/*.cpp -ldl >> "$out/build.log" 2>&1 || exit 1
  probe=build/direct/zcuda-probe
fi
echo "build_ms: $(( ($(date +%s%N) - build_start) / 1000000 ))" >> "$out/environment.txt"

"$probe" --list > "$out/list.json"
checks=$(grep -o '"name":"[^"]*"' "$out/list.json" | cut -d'"' -f4)
for pass in 1 2; do
  : > "$out/pass$pass.jsonl"
  suite_start=$(date +%s%N)
  for c in $checks; do
    start=$(date +%s%N)
    timeout 120 "$probe" --check "$c" >> "$out/pass$pass.jsonl" 2>> "$out/pass$pass.stderr"
    rc=$?
    echo "$c exit=$rc wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))" >> "$out/pass$pass.times"
  done
  echo "suite wall_ms=$(( ($(date +%s%N) - suite_start) / 1000000 ))" >> "$out/pass$pass.times"
done

# Pass 3: every check at once, to see what running probes in parallel would save (bandwidth and
# timing figures of this pass are not representative).
: > "$out/parallel.jsonl"
suite_start=$(date +%s%N)
for c in $checks; do
  timeout 120 "$probe" --check "$c" > "$out/parallel.$c.json" 2>> "$out/parallel.stderr" &
done
wait
echo "parallel suite wall_ms=$(( ($(date +%s%N) - suite_start) / 1000000 ))" >> "$out/parallel.times"
cat "$out"/parallel.*.json > "$out/parallel.jsonl" && rm -f "$out"/parallel.*.json
