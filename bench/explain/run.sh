#!/usr/bin/env bash
# Benchmark: `zcuda explain --file LOG` on a log of a few MiB against `grep -E -i` of the same
# patterns (the knowledge base's, turned into POSIX extended expressions). Goal (issue 25): explain
# stays under a second in a release build. Not part of CI; figures go to docs/performance.md.
# usage: bench/explain/run.sh [path/to/zcuda]     (default build/release/bin/zcuda)
# env:   SIZE_MIB=4  RUNS=5
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ZCUDA=${1:-$REPO/build/release/bin/zcuda}
SIZE_MIB=${SIZE_MIB:-4}
RUNS=${RUNS:-5}
[[ -x $ZCUDA ]] || { echo "bench: build zcuda first: cmake --preset release && cmake --build --preset release --target zcuda" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ZCUDA_HOME="$work/home" NO_COLOR=1

python3 "$REPO/bench/explain/make_log.py" "$work/run.log" "$SIZE_MIB"
# ECMAScript to POSIX ERE: (?:x) is (x); lookaheads only narrow a match, so grep drops them.
"$ZCUDA" --json explain --list | python3 -c '
import json, re, sys
for e in json.load(sys.stdin)["entries"]:
    for p in e["patterns"]:
        p = re.sub(r"\(\?[!=][^)]*\)", "", p).replace("(?:", "(")
        print(p)' > "$work/patterns.ere"

now() { date +%s.%N; }
median() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }
time_runs() {
  for _ in $(seq "$RUNS"); do
    local t0 t1; t0=$(now); "$@" > /dev/null || true; t1=$(now)
    echo "$t1 - $t0" | bc -l
  done | median
}

t_explain=$(time_runs "$ZCUDA" explain --no-detect --file "$work/run.log")
t_grep=$(time_runs grep -E -i -c -f "$work/patterns.ere" "$work/run.log")
found=$("$ZCUDA" --json explain --no-detect --file "$work/run.log" | python3 -c 'import json,sys; print(", ".join(e["id"] for e in json.load(sys.stdin)["explanations"]))')
printf 'machine: %s, %s cores, load %s\n' "$(uname -sr)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'log: %s bytes, %s lines; %s patterns; zcuda: %s\n' "$(stat -c %s "$work/run.log")" "$(wc -l < "$work/run.log")" \
  "$(wc -l < "$work/patterns.ere")" "$ZCUDA"
printf 'explained: %s\n' "$found"
printf 'zcuda explain --file:   %8.3f s (median of %s)\n' "$t_explain" "$RUNS"
printf 'grep -E -i -f patterns: %8.3f s (median of %s)\n' "$t_grep" "$RUNS"
printf 'ratio explain / grep:   %8.1f\n' "$(echo "$t_explain / $t_grep" | bc -l)"
if (( $(echo "$t_explain >= 1" | bc -l) )); then
  echo "bench: explain took a second or more (goal: under one second)" >&2
  exit 1
fi
