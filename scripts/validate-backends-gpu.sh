#!/bin/bash
# `zcuda bench --b-program` on a GPU machine (issue 36, docs/backends.md "Measuring both paths"):
# two Python environments made here, the same small torch GPU workload (a matmul loop) under A
# (venv-a's python) and B (venv-b's python), balanced order and paired verdict, the record kept.
# On an NVIDIA machine both are the pip torch with CUDA, natively: it shows the mechanism (two
# programs, their identities and digests in one record), not ROCm's speed.
# Usage: validate-backends-gpu.sh ZCUDA OUT: ZCUDA the portable zcuda binary, OUT a folder for
# the records. Needs python3 with torch (CUDA) importable; no network. DEVICE=cpu (with small
# sizes) tries the script's flow on a machine without a GPU; PYTHON names the interpreter (default: python3 on PATH).
set -u
Z=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
WORK=/tmp/zcuda-backends-gpu
HOME_DIR=$WORK/home
z() { "$Z" --home "$HOME_DIR" "$@"; }
step() { echo; echo "=== $*"; }

mkdir -p "$OUT"
rm -rf "$WORK" && mkdir -p "$WORK"
PY=${PYTHON:-$(command -v python3)}
export DEVICE=${DEVICE:-cuda}
N=${N:-4096}

step "machine"
nvidia-smi -L 2>/dev/null || echo "(no nvidia-smi)"
"$PY" -c "import sys, torch; print(sys.executable, torch.__version__, 'cuda', torch.version.cuda, 'hip', torch.version.hip, 'available', torch.cuda.is_available())"
"$Z" --version

step "two environments over the machine's torch: venv-a (links to $PY), venv-b (--copies: a python file of its own)"
"$PY" -m venv --system-site-packages "$WORK/venv-a" || exit 1
"$PY" -m venv --system-site-packages --copies "$WORK/venv-b" || exit 1
A=$WORK/venv-a/bin/python
B=$WORK/venv-b/bin/python
# Where PY is itself a venv (the GPU image's /opt/torch/.venv), --system-site-packages reaches
# only its base interpreter's packages: a .pth file in each new venv adds PY's own site-packages.
parent_site=$("$PY" -c 'import sys, sysconfig; print(sysconfig.get_paths()["purelib"] if sys.prefix != sys.base_prefix else "")')
if [[ -n $parent_site ]]; then
  for p in "$A" "$B"; do
    echo "$parent_site" >"$("$p" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zcuda-parent-venv.pth"
  done
  echo "added $parent_site to both venvs (a .pth file): $PY is a venv"
fi
for p in "$A" "$B"; do
  "$p" -c "import sys, torch; print(sys.prefix, torch.__version__, torch.cuda.get_device_name(0) if '$DEVICE' == 'cuda' else 'cpu')" || exit 1
done
sha256sum "$(readlink -f "$A")" "$B"

# The workload: a fixed number of fp16 matmuls on the GPU, timed with the device synchronised;
# one line per round, the first a warm-up that bench drops.
cat >"$WORK/matmul.py" <<'PY'
import os, sys, time, torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
cuda = os.environ.get("DEVICE", "cuda") == "cuda"
dev = torch.device("cuda" if cuda else "cpu")
dtype = torch.float16 if cuda else torch.float32
sync = torch.cuda.synchronize if cuda else (lambda: None)
a = torch.randn(n, n, device=dev, dtype=dtype)
b = torch.randn(n, n, device=dev, dtype=dtype)
for r in range(rounds):
    sync()
    t = time.perf_counter()
    for _ in range(50):
        c = a @ b
    sync()
    dt = time.perf_counter() - t
    print(f"tflops {50 * 2 * n**3 / dt / 1e12:.6f}", flush=True)
print("device", torch.cuda.get_device_name(0) if cuda else "cpu", "torch", torch.__version__, "checksum", float(c[0, :8].float().sum()))
PY

step "zcuda apps $A (recognition: the pytorch profile, torch's flavour)"
z apps "$A"

step "zcuda bench --b-program: A = venv-a's python, B = venv-b's python, the same script and arguments"
z --json bench --a-runtime native --b-runtime native --a-label venv-a --b-label venv-b --b-program "$B" \
  --metric 'tflops ([0-9.]+)' --runs 6 -- "$A" "$WORK/matmul.py" "$N" 6 >"$OUT/bench-b-program.json"
echo "exit code $?"
z bench --from-record "$OUT/bench-b-program.json"

step "zcuda bench --b-program --b-args: B runs a smaller matrix (another workload: its TFLOPS should differ)"
z --json bench --a-runtime native --b-runtime native --a-label "n$N" --b-label "n$((N / 2))" --b-program "$B" \
  --b-args "$WORK/matmul.py" $((N / 2)) 6 --metric 'tflops ([0-9.]+)' --runs 6 -- "$A" "$WORK/matmul.py" "$N" 6 >"$OUT/bench-b-args.json"
echo "exit code $?"
z bench --from-record "$OUT/bench-b-args.json"

cp "$WORK/matmul.py" "$OUT/matmul.py"
