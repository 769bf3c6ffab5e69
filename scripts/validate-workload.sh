#!/usr/bin/env bash
# Builds the reference workload rl-train against pip torch's LibTorch on a CUDA machine (the H200
# of docs/workload.md: pip torch with CUDA, CMake 4, g++ 13, no network) and validates it there:
#   build       configure (LibTorch's CMake package first; if that fails, e.g. for want of the
#               CUDA toolkit the package insists on, the LibTorch folder directly) and build
#               Release with -j$(nproc)
#   ctest       the program tests (CPU; GoogleTest is not expected there, so no unit tests)
#   verify      rl-train --device cuda --verify --iterations 2 (full size: 65,536 timesteps,
#               2,048 arenas), against the CPU double-precision reference
#   verify-tf32 the same with TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 (TF32 matmuls, as the seed's
#               wrapper sets), which the tolerances are meant to accept
#   corrupt     --verify --corrupt-update on the GPU: must exit 1 naming the update check
#   train       rl-train --device cuda --iterations 5 at full size, with --csv
# Everything (logs, CSV, environment, wall times, summary) goes to OUT. Steps can be chosen with
# RL_TRAIN_STEPS (default "build ctest verify verify-tf32 corrupt train"); the build folder
# (build/rl-train-cuda) is kept, so a second call rebuilds nothing.
# Usage: scripts/validate-workload.sh OUT
set -u
out=${1:?usage: scripts/validate-workload.sh OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
steps=${RL_TRAIN_STEPS:-build ctest verify verify-tf32 corrupt train}
python=${PYTHON:-python3}
build=$root/build/rl-train-cuda
program=$build/rl-train
jobs=$(nproc)
failed=0
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
note() { echo "$*" | tee -a "$out/summary.txt"; }
wants() { [[ " $steps " == *" $1 "* ]]; }

# run_step NAME EXPECTED_EXIT TIMEOUT_S COMMAND...: runs COMMAND with its output in OUT/NAME.log,
# records exit code and wall time.
run_step() {
  local name=$1 expected=$2 limit=$3; shift 3
  local start code
  start=$(now_ms)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  code=$?
  local wall=$(( $(now_ms) - start ))
  if [ "$code" = "$expected" ]; then
    note "$name: ok (exit $code, wall ${wall} ms)"
  else
    note "$name: FAILED (exit $code, expected $expected, wall ${wall} ms; see $name.log)"
    tail -n 30 "$out/$name.log"
    failed=1
  fi
}

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -srm)"
  echo "cpus: $jobs"
  echo "compiler: $(${CXX:-c++} --version 2>&1 | head -1)"
  echo "cmake: $(cmake --version 2>&1 | head -1)"
  echo "nvcc: $("$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" --version 2>&1 | tail -1)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
  "$python" - <<'PY' 2>&1
import os, torch
print("torch:", torch.__version__, "cuda:", torch.version.cuda, "cudnn:", torch.backends.cudnn.version())
print("torch_dir:", os.path.dirname(torch.__file__))
print("cxx11_abi:", int(torch._C._GLIBCXX_USE_CXX11_ABI))
print("cuda_available:", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
PY
} > "$out/environment.txt"
cat "$out/environment.txt"
: > "$out/summary.txt"

if wants build; then
  torch_dir=$("$python" -c 'import os, torch; print(os.path.dirname(torch.__file__))') || {
    note "build: FAILED ($python cannot import torch)"; exit 1; }
  prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
  abi=$("$python" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  common=(-S workloads/rl-train -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
          -DCMAKE_POLICY_VERSION_MINIMUM=3.5)
  # The CUDA toolkit, for LibTorch's CMake package (it looks for one).
  cuda_hints=()
  nvcc=$(command -v nvcc || true)
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -n "$nvcc" ]; then
    cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
    cuda_hints=(-DCUDAToolkit_ROOT="$cuda_root" -DCUDA_TOOLKIT_ROOT_DIR="$cuda_root" -DCMAKE_CUDA_COMPILER="$nvcc")
  fi

  start=$(now_ms)
  mode=package
  rm -rf "$build"
  if ! cmake "${common[@]}" -DCMAKE_PREFIX_PATH="$prefix" "${cuda_hints[@]}" > "$out/configure-package.log" 2>&1; then
    echo "== LibTorch's CMake package failed (last lines below; all in configure-package.log); using the folder directly"
    tail -n 25 "$out/configure-package.log"
    mode=folder
    rm -rf "$build"
    if ! cmake "${common[@]}" -DRL_TRAIN_TORCH_ROOT="$torch_dir" -DRL_TRAIN_TORCH_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$abi" \
         > "$out/configure-folder.log" 2>&1; then
      note "build: FAILED (configure failed both ways; see configure-package.log, configure-folder.log)"
      tail -n 40 "$out/configure-folder.log"
      find "$torch_dir" "$torch_dir/lib" "$prefix" -maxdepth 1 2>&1 | head -60
      exit 1
    fi
  fi
  note "configure: ok (LibTorch through its $mode, wall $(( $(now_ms) - start )) ms)"
  run_step build 0 900 cmake --build "$build" -j "$jobs"
  if [ ! -x "$program" ] && [ "$mode" = package ]; then
    echo "== the build through LibTorch's package failed; configuring with the folder directly"
    failed=0
    rm -rf "$build"
    cmake "${common[@]}" -DRL_TRAIN_TORCH_ROOT="$torch_dir" -DRL_TRAIN_TORCH_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$abi" \
      > "$out/configure-folder.log" 2>&1 && note "configure: ok (LibTorch through its folder)"
    run_step build-folder 0 900 cmake --build "$build" -j "$jobs"
  fi
  [ -x "$program" ] || { note "build: no rl-train"; exit 1; }
  ldd "$program" | grep -E 'torch|c10|cuda|cublas|gomp' > "$out/ldd.txt" 2>&1
fi
[ -x "$program" ] || { note "no $program: run the build step first"; exit 1; }

wants ctest && run_step ctest 0 600 ctest --test-dir "$build" --output-on-failure
wants verify && run_step verify 0 600 "$program" --device cuda --verify --iterations 2
wants verify-tf32 && run_step verify-tf32 0 600 env TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 \
  "$program" --device cuda --verify --iterations 2
if wants corrupt; then
  run_step corrupt 1 600 "$program" --device cuda --verify --corrupt-update --iterations 1
  grep -q "verify failed: update\." "$out/corrupt.log" || { note "corrupt: the failure did not name the update check"; failed=1; }
fi
wants train && run_step train 0 600 "$program" --device cuda --iterations 5 --csv "$out/train-cuda.csv" \
  --runtime-label native --trial 1

for log in verify verify-tf32 corrupt train; do
  [ -f "$out/$log.log" ] || continue
  echo "--- $log"
  grep -E '^(parameters|device|iter |verify)' "$out/$log.log"
done | tee -a "$out/summary.txt"
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,power.draw --format=csv,noheader > "$out/gpu-after.txt" 2>&1
exit "$failed"
