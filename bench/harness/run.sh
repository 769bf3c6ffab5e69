#!/usr/bin/env bash
# Benchmark of `zcuda bench`'s own cost per run (launch, capture, metric parse) against launching
# the program directly. Fixed costs (zcuda's start, detection, the record) cancel out: the cost
# per run is (T(bench with 60 runs per variant) - T(bench with 10)) / 100 runs, minus the
# program's own direct launch time. Goal (issue 12): under 5 ms per run.
# Usage: bench/harness/run.sh [path/to/zcuda]   (default build/release)
set -euo pipefail
zcuda=${1:-build/release/bin/zcuda}
[[ -x $zcuda ]] || { echo "no zcuda at $zcuda (build the release preset, or pass the binary)" >&2; exit 2; }
zcuda=$(realpath "$zcuda")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ZCUDA_HOME="$work/home" NO_COLOR=1

# The program: prints five values, as a short training run would print its iterations.
program=/usr/bin/printf  # the program, not the shell builtin
args=('sps %s\n' 101 102 103 104 105)

now() { date +%s.%N; }
median_of() {  # median of 7 timings of "$@"
  local times=()
  for _ in 1 2 3 4 5 6 7; do
    local t0 t1; t0=$(now); "$@" > /dev/null; t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 4p
}
direct_100() { for _ in $(seq 100); do "$program" "${args[@]}"; done; }
bench_runs() {
  "$zcuda" bench --no-detect --a-runtime native --b-runtime native --metric 'sps ([0-9]+)' --runs "$1" -- "$program" "${args[@]}"
}

t_direct=$(median_of direct_100)
t_bench_10=$(median_of bench_runs 10)
t_bench_60=$(median_of bench_runs 60)
per_direct_ms=$(echo "$t_direct * 1000 / 100" | bc -l)
per_bench_ms=$(echo "($t_bench_60 - $t_bench_10) * 1000 / 100" | bc -l)
cost_ms=$(echo "$per_bench_ms - $per_direct_ms" | bc -l)
printf 'machine: %s, %s cores, load %s\n' "$(uname -sr)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'direct launch of the program:      %7.3f ms per run\n' "$per_direct_ms"
printf 'the same run inside zcuda bench:   %7.3f ms per run\n' "$per_bench_ms"
printf 'harness cost per run:              %7.3f ms (goal: under 5 ms)\n' "$cost_ms"
