#!/usr/bin/env bash
# Benchmark: `zcuda explain --file LOG` on a log of a few MiB against `grep -E -i` of the same
# patterns (the knowledge base's, turned into POSIX extended expressions). Goal (issue 25): explain
# stays under a second in a release build (checked on CPU time; wall time is printed too). Not part of CI; figures go to docs/performance.md.
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

median() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }
# Wall and CPU (user + sys) seconds of each run; the CPU time is what the command costs when other
# work shares the cores (on an idle machine the two agree).
time_runs() {
  local out="$work/times.$RANDOM"
  for _ in $(seq "$RUNS"); do
    { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1 || true; } 2>> "$out"
  done
  wall=$(cut -d' ' -f1 "$out" | median)
  cpu=$(awk '{print $2 + $3}' "$out" | median)
}

time_runs "$ZCUDA" explain --no-detect --file "$work/run.log"
explain_wall=$wall explain_cpu=$cpu
time_runs grep -E -i -c -f "$work/patterns.ere" "$work/run.log"
grep_wall=$wall grep_cpu=$cpu
found=$("$ZCUDA" --json explain --no-detect --file "$work/run.log" | python3 -c 'import json,sys; print(", ".join(e["id"] for e in json.load(sys.stdin)["explanations"]))')
printf 'machine: %s, %s cores, load %s\n' "$(uname -sr)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'log: %s bytes, %s lines; %s patterns; zcuda: %s\n' "$(stat -c %s "$work/run.log")" "$(wc -l < "$work/run.log")" \
  "$(wc -l < "$work/patterns.ere")" "$ZCUDA"
printf 'explained: %s\n' "$found"
printf '                        wall (s)  CPU (s)   (median of %s)\n' "$RUNS"
printf 'zcuda explain --file:   %8.3f %8.3f\n' "$explain_wall" "$explain_cpu"
printf 'grep -E -i -f patterns: %8.3f %8.3f\n' "$grep_wall" "$grep_cpu"
printf 'ratio explain / grep:   %8.1f %8.1f\n' "$(echo "$explain_wall / $grep_wall" | bc -l)" "$(echo "$explain_cpu / ($grep_cpu + 0.001)" | bc -l)"
# The matcher alone at -O2 (no start-up, no output), built against this build's zcuda_core:
# bench/explain/match_tool.cpp.
core_lib="$(dirname "$(dirname "$ZCUDA")")/src/core/libzcuda_core.a"
if [[ -f $core_lib ]]; then
  g++ -std=c++23 -O2 -DNDEBUG -I"$REPO/include" "$REPO/bench/explain/match_tool.cpp" "$REPO/src/core/explain/matcher.cpp" \
      "$REPO/src/core/explain/knowledge_base.cpp" "$core_lib" -lfmt -lspdlog -lcurl -lssl -lcrypto -larchive -o "$work/match_tool"
  t_core=$(for _ in $(seq "$RUNS"); do "$work/match_tool" "$REPO/manifests/known-failures.json" "$work/run.log" | sed -n 's/^match_text: \([0-9.]*\) s$/\1/p'; done | median)
  printf 'match_text alone (-O2): %8.3f s wall (median of %s)\n' "$t_core" "$RUNS"
fi
if (( $(echo "$explain_cpu >= 1" | bc -l) )); then
  echo "bench: explain took a second or more of CPU time (goal: under one second)" >&2
  exit 1
fi
