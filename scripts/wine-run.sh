#!/usr/bin/env bash
# The cross build's test emulator (set in CMakeLists.txt in front of the toolchain's): wine-run.sh WINE
# PROGRAM ARGS... runs a Windows test program under Wine. Now and then, under load, Wine's loader
# fails a new process before any of its code has run (src/core/platform/process_win32.cpp retries
# the same failure): it exits non-zero having written nothing, and ctest would report a test that
# never started as failed. Such a start is tried again, up to twice, and said on stderr. A program
# that exited 0 or wrote anything at all (a GoogleTest program writes its first line before any
# test runs) is never run again, so a test that fails still fails.
set -uo pipefail
wine=$1
shift
out=$(mktemp) || exit 1
trap 'rm -f "${out}"' EXIT
for attempt in 1 2 3; do
  "${wine}" "$@" | tee "${out}"
  rc=${PIPESTATUS[0]}
  [[ ${rc} -eq 0 || -s ${out} || ${attempt} -eq 3 ]] && break
  echo "wine-run: $1 ended with exit code ${rc} before writing anything (Wine's loader failed it); starting it again" >&2
done
exit "${rc}"
