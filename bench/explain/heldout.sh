#!/usr/bin/env bash
# Held-out check (issue 34): `zcuda explain` on real messages whose threads no entry, sample or test
# uses (bench/explain/heldout.tsv). Prints what each message was explained as and counts the ones
# explained as the entry the file expects. Not part of CI; the figures go to docs/performance.md.
# usage: bench/explain/heldout.sh [path/to/zcuda]     (default build/dev/bin/zcuda)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ZCUDA=${1:-$REPO/build/dev/bin/zcuda}
[[ -x $ZCUDA ]] || { echo "heldout: build zcuda first (cmake --build build/dev --target zcuda)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ZCUDA_HOME="$work/home" NO_COLOR=1

total=0 right=0 recognised=0 wrong=0
while IFS=$'\t' read -r expected address message; do
  [[ -z $expected || $expected == \#* ]] && continue
  total=$((total + 1))
  # exit 1 means no entry matched; the JSON says so too.
  got=$("$ZCUDA" --json explain --no-detect "$message" 2> /dev/null |
    python3 -c 'import json,sys; e=json.load(sys.stdin)["explanations"]; print(e[0]["id"] if e else "-")' || true)
  [[ -n $got ]] || got="-"
  [[ $got != "-" ]] && recognised=$((recognised + 1))
  if [[ $got == "$expected" && $got != "-" ]]; then
    right=$((right + 1)) verdict=right
  elif [[ $got == "-" && $expected == "-" ]]; then
    verdict="none (none expected)"
  elif [[ $got == "-" ]]; then
    verdict="missed"
  else
    wrong=$((wrong + 1)) verdict="explained as another cause"
  fi
  printf '%-34s %-34s %s  %s\n' "$got" "$expected" "$verdict" "$address"
done < "$REPO/bench/explain/heldout.tsv"
echo "messages: $total  recognised: $recognised  explained correctly: $right  explained with a cause that does not fit: $wrong"
