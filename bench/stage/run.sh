#!/usr/bin/env bash
# Benchmark of `zcuda stage`/`unstage` and `zcuda run` overhead (issue 5).
#  1. A ZLUDA-sized runtime (20 files, 100 MiB in all, random bytes) staged into an app folder
#     that already holds 5 files of those names, against `cp` of the same 20 files.
#  2. `zcuda run -- true` against `true`.
# Prints times and ratios. Usage: bench/stage/run.sh [path/to/zcuda]   (default build/release)
# hyperfine is used when installed (Debian: apt-get install hyperfine), else a shell loop.
set -euo pipefail
zcuda=${1:-build/release/bin/zcuda}
[[ -x $zcuda ]] || { echo "no zcuda at $zcuda (build the release preset, or pass the binary)" >&2; exit 2; }
zcuda=$(realpath "$zcuda")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ZCUDA_HOME="$work/home" NO_COLOR=1

# The runtime, installed as `zcuda install` leaves it: <home>/installs/zluda/<version>/ with a
# receipt beside it holding each file's size and SHA-256 (docs/install.md), which staging uses
# instead of reading the files. Names as in ZLUDA's Linux archive; sizes summing to 100 MiB.
# Files are dated an hour back, as an installed runtime is older than a stage of it.
rt="$ZCUDA_HOME/installs/zluda/bench"; mkdir -p "$rt"
names=(libcuda.so.1 libnvcuda.so libnvidia-ml.so.1 libnvml.so
       libcublas.so.11 libcublas.so.12 libcublas.so.13 libcublasLt.so.11 libcublasLt.so.12 libcublasLt.so.13
       libcusparse.so.10 libcusparse.so.11 libcusparse.so.12 libcufft.so.10 libcufft.so.11 libcufft.so.12
       libcudnn.so.8 libcudnn.so.9 libcudnn64_8.so libcudnn64_9.so)
for n in "${names[@]}"; do head -c $((5 * 1024 * 1024)) /dev/urandom > "$rt/$n"; done
touch -d '1 hour ago' "$rt"/*
(cd "$rt" && for n in "${names[@]}"; do
   jq -n --arg p "$n" --argjson s "$(stat -c %s "$n")" --arg h "$(sha256sum "$n" | cut -d' ' -f1)" \
     '{path: $p, type: "file", size: $s, sha256: $h}'
 done) | jq -s '{schema: 1, component: "zluda", version: "bench", files: .}' > "$rt/../bench.receipt.json"
# The same files in a plain folder (no receipt): staging hashes them.
rt_plain="$work/runtime"; mkdir -p "$rt_plain"; cp -p "$rt"/* "$rt_plain/"
echo "runtime: ${#names[@]} files, $(du -sm "$rt" | cut -f1) MiB"

# The app: a folder with an executable and 5 files of served names (replaced, so backed up).
app="$work/app"; mkdir -p "$app"
cp /bin/true "$app/app"
for n in libcuda.so.1 libcublas.so.12 libcublasLt.so.12 libcusparse.so.12 libcufft.so.11; do
  head -c $((1024 * 1024)) /dev/urandom > "$app/$n"
done
sync

now() { date +%s.%N; }
# Median of N timed runs of "$@" after a reset command (not timed).
median() {
  local reset=$1; shift
  local times=()
  for _ in 1 2 3 4 5 6 7; do
    eval "$reset"
    local t0 t1; t0=$(now); "$@" > /dev/null; t1=$(now)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n 4p
}

cpdir="$work/cp-target"
t_cp=$(median "rm -rf '$cpdir'; mkdir -p '$cpdir'; sync" cp "${names[@]/#/$rt/}" "$cpdir/")
t_stage=$(median "'$zcuda' unstage '$app' > /dev/null; sync" "$zcuda" stage --all "$app" --runtime-dir "$rt")
t_stage_again=$(median ":" "$zcuda" stage --all "$app" --runtime-dir "$rt")
t_unstage=$(median "'$zcuda' stage --all '$app' --runtime-dir '$rt' > /dev/null; sync" "$zcuda" unstage "$app")
t_stage_plain=$(median "'$zcuda' unstage '$app' > /dev/null; sync" "$zcuda" stage --all "$app" --runtime-dir "$rt_plain")
t_unstage_plain=$(median "'$zcuda' stage --all '$app' --runtime-dir '$rt_plain' > /dev/null; sync" "$zcuda" unstage "$app")
method=$("$zcuda" --json stage --all "$app" --runtime-dir "$rt" > /dev/null; grep -o '"method": "[a-z]*"' "$app/.zcuda-stage/journal.json" | sort | uniq -c | tr '\n' ' ')
recorded=$(grep -c '"staged_mtime_ns": [0-9]' "$app/.zcuda-stage/journal.json" || true)
"$zcuda" unstage "$app" > /dev/null

printf '\n%-34s %9s %9s\n' "operation (median of 7)" "seconds" "x cp"
printf '%-34s %9.4f %9s\n' "cp of the 20 files (100 MiB)" "$t_cp" "1.00"
for row in "stage --all (20 files):$t_stage" "stage again (nothing to do):$t_stage_again" "unstage:$t_unstage" \
           "stage --all, folder w/o receipt:$t_stage_plain" "unstage of that:$t_unstage_plain"; do
  printf '%-34s %9.4f %9.2f\n' "${row%%:*}" "${row##*:}" "$(echo "${row##*:} / $t_cp" | bc -l)"
done
echo "placement methods: $method"
echo "journal steps with size and time recorded: $recorded"

echo
mkdir -p "$work/rt-run" && cp "$rt/libcuda.so.1" "$work/rt-run/"
if command -v hyperfine > /dev/null; then
  hyperfine -N --warmup 20 --runs 300 --export-json "$work/run.json" \
    "true" "$zcuda --version" "$zcuda run --runtime-dir $work/rt-run -- true" \
    "$zcuda stage --all $app --runtime-dir $rt" | sed -n '1,40p'
  mapfile -t means < <(grep -o '"mean": *[0-9.e-]*' "$work/run.json" | sed 's/.*: *//')
  awk -v a="${means[0]}" -v v="${means[1]}" -v b="${means[2]}" -v s="${means[3]}" \
    'BEGIN { printf "--version: %.2f ms over true; run overhead: %.2f ms per launch (mean %.2f ms against %.2f ms); no-op stage: %.2f ms\n", (v - a) * 1000, (b - a) * 1000, b * 1000, a * 1000, s * 1000 }'
else
  n=200
  t0=$(now); for _ in $(seq $n); do true; done; t1=$(now)
  base=$(echo "($t1 - $t0) / $n" | bc -l)
  t0=$(now); for _ in $(seq $n); do /bin/true; done; t1=$(now)
  plain=$(echo "($t1 - $t0) / $n" | bc -l)
  t0=$(now); for _ in $(seq $n); do "$zcuda" run --runtime-dir "$work/rt-run" -- true; done; t1=$(now)
  wrapped=$(echo "($t1 - $t0) / $n" | bc -l)
  printf 'true: %.2f ms, zcuda run -- true: %.2f ms, overhead %.2f ms\n' \
    "$(echo "$plain * 1000" | bc -l)" "$(echo "$wrapped * 1000" | bc -l)" "$(echo "($wrapped - $plain) * 1000" | bc -l)"
fi
