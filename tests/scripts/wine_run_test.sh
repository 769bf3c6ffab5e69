#!/usr/bin/env bash
# scripts/wine-run.sh, the cross build's test emulator, with a stand-in for wine: a program that
# failed before writing anything is started again (at most three starts in all), one that wrote
# anything or exited 0 is not, and the exit code and output that come back are the last start's.
# Usage: wine_run_test.sh SOURCE_DIR
set -uo pipefail

source_dir=${1:?usage: wine_run_test.sh SOURCE_DIR}
runner="$source_dir/scripts/wine-run.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The stand-in "wine" counts its starts in a file and behaves as the program's first argument
# says for that start: "silent:N" exits N having written nothing, "say:N" writes a line and
# exits N. PLAN holds one such word per start; the last one repeats.
fake_wine="$work/wine"
cat >"$fake_wine" <<'STAND_IN'
#!/usr/bin/env bash
count_file=$1.count
starts=$(( $(cat "$count_file" 2>/dev/null || echo 0) + 1 ))
echo "$starts" >"$count_file"
read -r -a plan <"$1"
step=${plan[$(( starts <= ${#plan[@]} ? starts - 1 : ${#plan[@]} - 1 ))]}
case $step in
  silent:*) exit "${step#silent:}" ;;
  say:*) echo "start $starts: $2"; exit "${step#say:}" ;;
esac
STAND_IN
chmod +x "$fake_wine"

check() {  # NAME PLAN EXPECTED_RC EXPECTED_STARTS EXPECTED_STDOUT
  local name=$1 plan_file="$work/$1.plan"
  echo "$2" >"$plan_file"
  local out rc starts
  out=$("$runner" "$fake_wine" "$plan_file" "--gtest_filter=X" 2>"$work/$name.err")
  rc=$?
  starts=$(cat "$plan_file.count")
  [[ $rc -eq $3 ]] || fail "$name: exit code $rc, expected $3"
  [[ $starts -eq $4 ]] || fail "$name: $starts starts, expected $4"
  [[ $out == "$5" ]] || fail "$name: stdout [$out], expected [$5]"
  local retries
  retries=$(grep -c "starting it again" "$work/$name.err")
  [[ $retries -eq $(( $4 - 1 )) ]] || fail "$name: $retries notes of a new start on stderr, expected $(( $4 - 1 ))"
}

check passes "say:0" 0 1 "start 1: --gtest_filter=X"
check fails_with_output "say:1" 1 1 "start 1: --gtest_filter=X"
check silent_success "silent:0" 0 1 ""
check loader_failed_once "silent:3 say:0" 0 2 "start 2: --gtest_filter=X"
check loader_failed_then_test_failed "silent:3 say:1" 1 2 "start 2: --gtest_filter=X"
check loader_failed_twice "silent:5 silent:5 say:0" 0 3 "start 3: --gtest_filter=X"
check always_silent_failure "silent:7" 7 3 ""

if [[ $failures -gt 0 ]]; then
  echo "wine_run_test: $failures failure(s)" >&2
  exit 1
fi
echo "wine_run_test: all checks passed"
