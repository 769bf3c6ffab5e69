#!/usr/bin/env bash
# Builds zcuda-probe alone (no zcuda packages needed) and runs every check natively, scheduled as
# `zcuda verify` schedules them by default (the plan comes from `zcuda-probe --plan`): the timing
# checks (driver.memory, driver.stream) alone, then one process per group of checks that load the
# same libraries, four processes at a time, each group under the probe's per-check watchdog; a
# check a process did not reach runs again alone, as the runner does. Four passes:
#   runner-cold   the first run on the machine (JIT and library caches cold)
#   runner-warm   the same again
#   jobs-1        one process at a time (`zcuda verify --jobs 1`)
#   isolated      every check in its own process, one at a time (the scheduling before groups)
# Prints each pass's wall time and status counts; writes the results (one JSON line per check,
# the probe's own output), the timings and the environment to OUT_DIR. Produced
# docs/validation/nvidia-h200-native.json.
# Usage: scripts/validate-probe.sh OUT_DIR
set -u
out=${1:?usage: validate-probe.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
limit=120  # seconds per check, as zcuda verify's --timeout

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -srm)"
  echo "compiler: $(g++ --version | head -1)"
  echo "cmake: $(cmake --version 2>/dev/null | head -1)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} > "$out/environment.txt" 2>&1

start=$(now_ms)
if cmake --preset probe-only > "$out/build.log" 2>&1 && cmake --build --preset probe-only -j"$(nproc)" >> "$out/build.log" 2>&1; then
  probe=$root/build/probe-only/bin/zcuda-probe
else
  echo "cmake build failed; falling back to g++" >> "$out/build.log"
  mkdir -p build/direct
  g++ -std=c++23 -O2 -pthread -o build/direct/zcuda-probe src/probe/*.cpp -ldl >> "$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
  probe=$root/build/direct/zcuda-probe
fi
echo "build_ms: $(( $(now_ms) - start ))" >> "$out/environment.txt"
"$probe" --plan > "$out/plan.txt"
checks=$("$probe" --list | grep -o '"name":"[^"]*"' | cut -d'"' -f4)
work=$(mktemp -d)

one() {  # one check alone in its own process
  local s rc; s=$(now_ms)
  timeout "$limit" "$probe" --check "$1" > "$work/$1.alone" 2>> "$work/stderr"
  rc=$?
  echo "$1 alone exit=$rc wall_ms=$(( $(now_ms) - s ))" >> "$work/times"
  cat "$work/$1.alone" >> "$work/results"
  grep -qF "\"check\":\"$1\"" "$work/$1.alone" || echo "{\"check\":\"$1\",\"status\":\"crash\",\"detail\":\"recorded by validate-probe.sh: the probe process ended with exit code $rc before reporting it\"}" >> "$work/results"
}

unit() {  # one process for the checks named, as zcuda verify starts it
  local args=() c s rc
  for c in "$@"; do args+=(--check "$c"); done
  [ $# -gt 1 ] && args+=(--watchdog "$limit")
  s=$(now_ms)
  timeout $(( limit * $# + 5 )) "$probe" "${args[@]}" > "$work/$1.unit" 2>> "$work/stderr"
  rc=$?
  echo "$* exit=$rc wall_ms=$(( $(now_ms) - s ))" >> "$work/times"
  cat "$work/$1.unit" >> "$work/results"
  # As the runner does: a process that crashed or hung is charged to the check it was running,
  # and what it did not reach runs again alone (all of it, after a deliberate stop on a failure).
  local charged=$(( rc == 0 ))
  for c in "$@"; do
    grep -qF "\"check\":\"$c\"" "$work/$1.unit" && continue
    if [ "$charged" = 0 ]; then
      charged=1
      local status=crash
      [ "$rc" = 124 ] && status=timeout
      echo "{\"check\":\"$c\",\"status\":\"$status\",\"detail\":\"recorded by validate-probe.sh: the probe process ended with exit code $rc before reporting it\"}" >> "$work/results"
    else
      one "$c"
    fi
  done
}
export -f one unit now_ms; export probe work limit

summary=""
for pass in runner-cold runner-warm jobs-1 isolated; do
  rm -f "$work"/*.unit "$work"/*.alone "$work/results" "$work/times"
  s=$(now_ms)
  case $pass in
    isolated) for c in $checks; do one "$c"; done ;;
    *)
      parallel=4
      [ "$pass" = jobs-1 ] && parallel=1
      grep '^exclusive ' "$out/plan.txt" | cut -d' ' -f2- | while read -r line; do unit $line; done
      grep '^shared ' "$out/plan.txt" | cut -d' ' -f2- | xargs -P "$parallel" -L 1 bash -c 'unit "$@"' _
      ;;
  esac
  total=$(( $(now_ms) - s ))
  for c in $checks; do grep -hF "\"check\":\"$c\"" "$work/results" | head -1; done > "$out/$pass.jsonl"
  statuses=$(grep -o '"status":"[a-z]*"' "$out/$pass.jsonl" | cut -d'"' -f4 | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
  { echo "[$pass] suite wall_ms=$total"; cat "$work/times"; } >> "$out/times.txt"
  summary+=$(printf '%-12s suite wall time %6.2f s   %s' "$pass" "$(echo "$total" | awk '{print $1 / 1000}')" "$statuses")$'\n'
done
cat "$work/stderr" > "$out/stderr.txt" 2>/dev/null
rm -rf "$work"
echo "zcuda-probe: $("$probe" --list | grep -o '"name"' | wc -l) checks; results in $out"
printf '%s' "$summary" | tee "$out/summary.txt"
# Checks that did not pass in the warm pass, with their detail.
grep -v '"status":"pass"' "$out/runner-warm.jsonl" | sed -E 's/.*"check":"([^"]*)","status":"([^"]*)","detail":"([^"]{0,160}).*/  \1: \2: \3/'
