#!/usr/bin/env bash
# What a launch costs against `true`, paired in one run (issue 38; docs/performance.md): zcuda
# --version, run --runtime-dir DIR -- true, and a stage with nothing to do, 100 runs each.
# Usage: bench/launch/run.sh [path/to/zcuda] [--runs N]   (default build/release/bin/zcuda)
set -euo pipefail
zcuda=${1:-build/release/bin/zcuda}
[[ -x $zcuda ]] || { echo "no zcuda at $zcuda (build the release preset, or pass the binary)" >&2; exit 2; }
shift || true
exec python3 "$(dirname "$0")/run.py" "$zcuda" "$@"
