#!/usr/bin/env bash
# Builds zcuda twice (a debug build, and one under AddressSanitizer + UndefinedBehaviorSanitizer),
# both with warnings as errors, and runs every test in each. This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

for preset in dev asan; do
  echo "== ${preset}: configure and build"
  cmake --preset "${preset}" >/dev/null
  cmake --build --preset "${preset}"
  echo "== ${preset}: test"
  ctest --preset "${preset}"
done
