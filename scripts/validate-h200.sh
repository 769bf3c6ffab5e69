#!/usr/bin/env bash
# The GPU validation run behind docs/validation/ (issues 12, 13, 15), on the H200 machine: pip
# torch with CUDA, CMake 4, g++ 13, no network, none of Debian's packages. zcuda travels as
# carried by scripts/carry-to-gpu-machine.sh into .device/zcuda. Steps, each under its own time
# limit, each writing into OUT as it goes (so a step cut short still leaves the others):
#   build-workload  rl-train against pip torch's LibTorch (scripts/validate-workload.sh build)
#   probe           zcuda-probe built there, every check natively (scripts/validate-probe.sh)
#   zcuda           zcuda verify --runtime native and zcuda detect, as JSON
#   train           rl-train full size (65,536 timesteps, 2,048 arenas), 5 iterations, CSV
#   bench-aa        zcuda bench A/A: LibTorch's defaults on both sides (the noise floor)
#   bench-tf32-off  A/B: B forces TF32 off in every CUDA library (NVIDIA_TF32_OVERRIDE=0)
#   bench-tf32-on   A/B: B allows TF32 in cuBLAS (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1, as the
#                   community wrapper sets it); checked, so a B that breaks FP32 tolerances fails
#   bench-tf32-on-speed  the same without the check: the speed alone
#   verify-full     rl-train --device cuda --verify at full size (the CPU reference is slow)
# Each bench run is checked by rl-train's own --verify at a small size, run in that run's
# environment, so the records are application-verified.
# Usage: scripts/validate-h200.sh OUT [STEPS...]
set -u
out=${1:?usage: validate-h200.sh OUT [STEPS...]}
shift
steps=${*:-build-workload probe zcuda train bench-aa bench-tf32-off bench-tf32-on bench-tf32-on-speed verify-full}
mkdir -p "$out" && out=$(cd "$out" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
zcuda=$root/.device/zcuda/bin/zcuda
rl=$root/build/rl-train-cuda/rl-train
wants() { [[ " $steps " == *" $1 "* ]]; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
step() {  # step NAME LIMIT COMMAND...: output in OUT/NAME.log, wall time in OUT/steps.txt
  local name=$1 limit=$2; shift 2
  local t0 code
  t0=$(now_ms)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  code=$?
  echo "$name exit $code wall $(( $(now_ms) - t0 )) ms" | tee -a "$out/steps.txt"
}

nvidia-smi > "$out/nvidia-smi.txt" 2>&1
wants build-workload && step build-workload 240 env RL_TRAIN_STEPS=build scripts/validate-workload.sh "$out/workload"
wants probe && step probe 150 scripts/validate-probe.sh "$out/probe"
if wants zcuda; then
  step zcuda-version 10 "$zcuda" --version
  step zcuda-verify 120 "$zcuda" --home "$out/home" --json verify --runtime native
  cp "$out/zcuda-verify.log" "$out/zcuda-verify.json"
  step zcuda-detect 60 "$zcuda" --json detect
fi
wants train && step train 120 "$rl" --device cuda --iterations 5 --csv "$out/train.csv"
check="$rl --device cuda --verify --timesteps 8192 --iterations 1"
# --no-tf32-override: a ZLUDA-side variant would otherwise get TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1
# from zcuda, and --check verifies FP32 results (the native variants here get nothing from zcuda;
# the TF32 steps set the variable themselves with --b-env).
bench() {  # bench NAME ARGS...: one zcuda bench of rl-train at full size, 5 iterations per run
  local name=$1; shift
  step "$name" 200 "$zcuda" --home "$out/home" --json bench --no-tf32-override --metric 'overall_sps ([0-9.]+)' --check "$check" "$@" \
    -- "$rl" --device cuda --iterations 5
  cp "$out/$name.log" "$out/$name.json"
}
# LibTorch's defaults on both sides: the noise floor.
wants bench-aa && bench bench-aa --runs 5 --a-runtime native --b-runtime native --a-label default --b-label default
# TF32 forced off in every CUDA library (NVIDIA_TF32_OVERRIDE=0) against LibTorch's defaults.
wants bench-tf32-off && bench bench-tf32-off --runs 5 --a-runtime native --b-runtime native --a-label default --b-label tf32-off \
  --b-env NVIDIA_TF32_OVERRIDE=0
# TF32 allowed in cuBLAS, as the community wrapper sets it: faster matmuls, FP32 tolerances at risk.
wants bench-tf32-on && bench bench-tf32-on --runs 5 --a-runtime native --b-runtime native --a-label default --b-label tf32-allowed \
  --b-env TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1
# The same without the output check: the speed alone, which the check-failing B above cannot give.
wants bench-tf32-on-speed && step bench-tf32-on-speed 200 "$zcuda" --home "$out/home" --json bench --metric 'overall_sps ([0-9.]+)' \
  --runs 5 --a-runtime native --b-runtime native --a-label default --b-label tf32-allowed \
  --b-env TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 -- "$rl" --device cuda --iterations 5
wants verify-full && step verify-full 240 "$rl" --device cuda --verify --iterations 2
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' \
  > "$out/torch.txt" 2>&1
