#!/usr/bin/env bash
# Builds zcuda-probe alone (no zcuda packages needed) and runs every check natively, one process
# per check, scheduled as `zcuda verify` does by default: the timing checks (driver.memory,
# driver.stream) alone, then the others four at a time. Run cold, then warm, then one at a time
# (`zcuda verify --jobs 1`). Produced docs/validation/nvidia-h200-native.json.
# Usage: scripts/validate-probe.sh OUT_DIR
set -u
out=${1:?usage: validate-probe.sh OUT_DIR}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -srm)"
  echo "compiler: $(g++ --version | head -1)"
  echo "cmake: $(cmake --version 2>/dev/null | head -1)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} > "$out/environment.txt" 2>&1

start=$(now_ms)
if cmake --preset probe-only > "$out/build.log" 2>&1 && cmake --build --preset probe-only -j"$(nproc)" >> "$out/build.log" 2>&1; then
  probe=$root/build/probe-only/bin/zcuda-probe
else
  echo "cmake build failed; falling back to g++" >> "$out/build.log"
  mkdir -p build/direct
  g++ -std=c++23 -O2 -o build/direct/zcuda-probe src/probe/*.cpp -ldl >> "$out/build.log" 2>&1 || exit 1
  probe=$root/build/direct/zcuda-probe
fi
echo "build_ms: $(( $(now_ms) - start ))" >> "$out/environment.txt"
checks=$("$probe" --list | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
work=$(mktemp -d)

one() {  # one check in its own process, with its wall time
  local s; s=$(now_ms)
  timeout 120 "$probe" --check "$1" > "$work/$1.json" 2>> "$work/stderr"
  echo "$1 exit=$? wall_ms=$(( $(now_ms) - s ))" > "$work/$1.time"
}
export -f one now_ms; export probe work

for pass in runner-cold runner-warm sequential; do
  rm -f "$work"/*.json "$work"/*.time
  s=$(now_ms)
  if [ "$pass" = sequential ]; then
    for c in $checks; do one "$c"; done
  else
    for c in driver.memory driver.stream; do one "$c"; done
    printf '%s\n' $checks | grep -vx -e driver.memory -e driver.stream | xargs -P 4 -I{} bash -c 'one {}'
  fi
  total=$(( $(now_ms) - s ))
  for c in $checks; do cat "$work/$c.json"; done > "$out/$pass.jsonl"
  { echo "[$pass]"; for c in $checks; do cat "$work/$c.time"; done; echo "suite wall_ms=$total"; } >> "$out/times.txt"
done
cat "$work/stderr" > "$out/stderr.txt" 2>/dev/null
