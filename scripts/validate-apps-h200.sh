#!/bin/bash
# The application profiles on an NVIDIA machine (docs/validation/apps-h200.md): the torch check
# through the machine's pip torch natively, and through a "loopback runtime" (a folder laid out
# as a ZLUDA Linux runtime holding NVIDIA's own libcuda.so.1 and libnvidia-ml.so.1, copied), then
# `zcuda bench` of a small training script through the pytorch profile.
# Usage: validate-apps-h200.sh DIR OUT, DIR holding zcuda, its shared libraries in lib/, and
# validate-apps-train.py. zcuda is started through the dynamic loader with --library-path, so
# its libraries never reach the Python processes it launches.
set -u
D=$(cd "$1" && pwd)
OUT=$2
HOME_DIR=/tmp/zcuda-apps-home
LOOP=/tmp/loopback-zluda
z() { /lib64/ld-linux-x86-64.so.2 --library-path "$D/lib" "$D/zcuda" --home "$HOME_DIR" "$@"; }
step() { echo; echo "=== $*"; }

PY=$(command -v python3)
step "machine"
nvidia-smi -L
"$PY" -c "import sys, torch; print(sys.executable, torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available())"

step "zcuda apps $PY"
z apps "$PY"

step "zcuda verify --app $PY --runtime native"
z verify --app "$PY" --runtime native
echo "exit code $?"

step "the loopback runtime: NVIDIA's own driver libraries copied into a ZLUDA-shaped folder"
rm -rf "$LOOP" && mkdir -p "$LOOP"
for name in libcuda.so.1 libnvidia-ml.so.1; do
  src=$(ldconfig -p | awk -v n="$name" '$1 == n { print $NF; exit }')
  cp -L "$src" "$LOOP/$name" && echo "$name <- $src"
done
ln -s libcuda.so.1 "$LOOP/libcuda.so"
ls -la "$LOOP"
sha256sum "$LOOP"/libcuda.so.1 "$LOOP"/libnvidia-ml.so.1

step "zcuda run --runtime-dir $LOOP --print-env $PY train.py"
z run --runtime-dir "$LOOP" --print-env "$PY" "$D/validate-apps-train.py"

step "zcuda verify --app $PY --runtime-dir $LOOP"
z verify --app "$PY" --runtime-dir "$LOOP"
echo "exit code $?"

step "zcuda run --runtime-dir $LOOP $PY train.py"
z run --runtime-dir "$LOOP" "$PY" "$D/validate-apps-train.py"
echo "exit code $?"

step "zcuda bench: native against the loopback runtime, through the pytorch profile"
z bench --a-runtime native --a-label native --b-runtime "$LOOP" --b-label loopback --runs 6 --warmup 0 --metric 'steps_per_s ([0-9.]+)' -- "$PY" "$D/validate-apps-train.py"
echo "exit code $?"

mkdir -p "$OUT/state" && cp -r "$HOME_DIR/state/." "$OUT/state/"
