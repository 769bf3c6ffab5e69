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

# A ZLUDA launch sets TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (ZLUDA has no exact FP32 GEMM path to
# offer); native gets the same here, so the two variants differ only in where libcuda comes from.
step "zcuda bench: native against the loopback runtime, through the pytorch profile (TF32 override in both)"
z bench --a-runtime native --a-label native --a-env TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 --b-runtime "$LOOP" --b-label loopback --runs 6 --warmup 0 \
  --metric 'steps_per_s ([0-9.]+)' -- "$PY" "$D/validate-apps-train.py"
echo "exit code $?"

if [[ -n ${LLAMA_STANDIN:-} ]]; then
  # llama.cpp's check reads the fat binary of libggml-cuda; pip torch's libtorch_cuda.so is a
  # real one made by NVIDIA's toolchain, so it stands in under llama.cpp's name.
  step "zcuda verify --app: the fatbin check on a real NVIDIA-built library ($LLAMA_STANDIN)"
  rm -rf /tmp/llama-standin && mkdir -p /tmp/llama-standin
  ln -s "$LLAMA_STANDIN" /tmp/llama-standin/libggml-cuda.so
  z verify --app /tmp/llama-standin --profile llama-cpp --runtime-dir "$LOOP"
  echo "exit code $?"
  z --json verify --app /tmp/llama-standin --profile llama-cpp --runtime-dir "$LOOP" >"$OUT/llama-standin-check.json"
fi

# Records flat under OUT: the device tool brings back only shallow files.
mkdir -p "$OUT" && find "$HOME_DIR/state" -name '*.json' -newer "$D/zcuda" -exec cp {} "$OUT/" \;
