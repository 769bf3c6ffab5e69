#!/usr/bin/env bash
# The README's test command: builds zcuda under AddressSanitizer and UndefinedBehaviorSanitizer
# with warnings as errors and runs every test in that build; then builds the reference workload
# rl-train against Debian's LibTorch (the `workloads` preset: no sanitizers, which LibTorch does
# not take) and runs its tests, a short CPU --verify among them; then builds zcuda for Windows with
# MinGW-w64 and runs every test again as Windows programs under Wine (scripts/test-windows.sh,
# which also makes the release zip). (The `dev` preset is the Linux build without sanitizers, for
# day-to-day work: cmake --preset dev && cmake --build --preset dev && ctest --preset dev.)
set -euo pipefail
cd "$(dirname "$0")/.."
# Compiles go through ccache where it is installed (CMakeLists.txt; scripts/install-deps.sh installs
# it). Its cache lives outside the clone and persists between runs on one machine; paths are hashed
# relative to this clone, so another clone of the same sources (CI's) reuses what was compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
started=$(date +%s)
phase() { echo "== $1 ($(( $(date +%s) - started )) s so far)"; }

# The Windows build's libraries (scripts/windows-deps.sh; cached, so usually at once) build in the
# background from the start, at the lowest priority, on what the asan build and tests leave idle;
# built in the foreground, their downloads and single-threaded configure scripts left a core idle.
# In a session of their own (setsid), so they can be stopped as a group; where the kernel
# schedules each session as a group (autogroup), that group is niced too, or it would get half
# the machine whatever the processes' own nice values.
mkdir -p build
deps_log=build/windows-deps.log
setsid --wait bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null || true; exec nice -n 19 ./scripts/windows-deps.sh' \
  >"${deps_log}" 2>&1 &
deps_pid=$!
trap 'kill -- -${deps_pid} 2>/dev/null || true' EXIT

phase "format (scripts/check-format.sh)"
scripts/check-format.sh || { rc=$?; [[ ${rc} -eq 77 ]] || exit ${rc}; }

preset=asan
phase "${preset}: configure and build"
cmake --preset "${preset}" >/dev/null
cmake --build --preset "${preset}"
phase "${preset}: test"
ctest --preset "${preset}"

preset=workloads
phase "${preset}: configure and build rl-train (docs/workload.md)"
cmake --preset "${preset}" >/dev/null
cmake --build --preset "${preset}"
phase "${preset}: test"
ctest --preset "${preset}"

phase "windows: the libraries (scripts/windows-deps.sh, started at the beginning)"
if ! wait "${deps_pid}"; then
  tail -n 40 "${deps_log}" >&2
  echo "test: scripts/windows-deps.sh failed; its whole output is in ${deps_log}" >&2
  exit 1
fi
trap - EXIT
cat "${deps_log}"
phase "windows (scripts/test-windows.sh)"
./scripts/test-windows.sh
phase "done"
