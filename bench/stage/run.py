#!/usr/bin/env python3
"""bench/stage/run.sh's measures with nothing but Python 3 (no jq, bc or hyperfine), for the GPU
validation machines, which have none of Debian's packages:

  1. A ZLUDA-sized runtime (20 files, 100 MiB, random bytes) installed under a home with its
     receipt, staged into an app folder that already holds 5 files of those names, against `cp`
     of the same 20 files (median of 7, each after a reset that is not timed).
  2. Commands with nothing to do, each started RUNS times after WARMUP starts: `true`,
     `zcuda --version`, `zcuda run --runtime-dir DIR -- true` and a `zcuda stage --all` that finds
     everything in place. Wall time per start (mean, median, minimum) and the CPU time the child
     used (user + system, from wait4), which a busy machine distorts less.

usage: bench/stage/run.py ZCUDA [--runs N] [--warmup N]   (ZCUDA: a built zcuda, e.g. the portable one)
"""
import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

NAMES = ["libcuda.so.1", "libnvcuda.so", "libnvidia-ml.so.1", "libnvml.so",
         "libcublas.so.11", "libcublas.so.12", "libcublas.so.13", "libcublasLt.so.11", "libcublasLt.so.12", "libcublasLt.so.13",
         "libcusparse.so.10", "libcusparse.so.11", "libcusparse.so.12", "libcufft.so.10", "libcufft.so.11", "libcufft.so.12",
         "libcudnn.so.8", "libcudnn.so.9", "libcudnn64_8.so", "libcudnn64_9.so"]
REPLACED = ["libcuda.so.1", "libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12", "libcufft.so.11"]


def run_quiet(argv):
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def timed_start(argv):
    """Wall seconds and child CPU seconds of one start of argv."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"bench: {' '.join(argv)} exited with {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def median_of_7(reset, argv):
    times = []
    for _ in range(7):
        reset()
        os.sync()
        times.append(timed_start(argv)[0])
    return statistics.median(times)


def make_runtime(home):
    """The runtime as `zcuda install` leaves it: files under installs/zluda/bench, a receipt beside
    them with each file's size and SHA-256 (docs/install.md), dated an hour back."""
    runtime = os.path.join(home, "installs", "zluda", "bench")
    os.makedirs(runtime)
    files = []
    hour_ago = time.time() - 3600
    for name in NAMES:
        data = os.urandom(5 * 1024 * 1024)
        path = os.path.join(runtime, name)
        with open(path, "wb") as f:
            f.write(data)
        os.utime(path, (hour_ago, hour_ago))
        files.append({"path": name, "type": "file", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    receipt = {"schema": 1, "component": "zluda", "version": "bench", "files": files}
    with open(os.path.join(home, "installs", "zluda", "bench.receipt.json"), "w") as f:
        json.dump(receipt, f)
    return runtime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zcuda")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    args = parser.parse_args()
    zcuda = os.path.realpath(args.zcuda)
    true = shutil.which("true")
    work = tempfile.mkdtemp(prefix="zcuda-bench-")
    try:
        home = os.path.join(work, "home")
        os.environ.update({"ZCUDA_HOME": home, "NO_COLOR": "1"})
        runtime = make_runtime(home)
        app = os.path.join(work, "app")
        os.makedirs(app)
        shutil.copy(true, os.path.join(app, "app"))
        for name in REPLACED:
            with open(os.path.join(app, name), "wb") as f:
                f.write(os.urandom(1024 * 1024))
        os.sync()

        cp_target = os.path.join(work, "cp-target")

        def reset_cp():
            shutil.rmtree(cp_target, ignore_errors=True)
            os.makedirs(cp_target)

        t_cp = median_of_7(reset_cp, ["cp"] + [os.path.join(runtime, n) for n in NAMES] + [cp_target])
        stage = [zcuda, "stage", "--all", app, "--runtime-dir", runtime]
        t_stage = median_of_7(lambda: run_quiet([zcuda, "unstage", app]), stage)
        t_again = median_of_7(lambda: None, stage)
        t_unstage = median_of_7(lambda: run_quiet(stage), [zcuda, "unstage", app])
        print(f"\n{'operation (median of 7)':<34} {'seconds':>9} {'x cp':>7}")
        print(f"{'cp of the 20 files (100 MiB)':<34} {t_cp:9.4f} {1:7.2f}")
        for label, t in [("stage --all (20 files)", t_stage), ("stage again (nothing to do)", t_again), ("unstage", t_unstage)]:
            print(f"{label:<34} {t:9.4f} {t / t_cp:7.2f}")

        run_rt = os.path.join(work, "rt-run")
        os.makedirs(run_rt)
        shutil.copy(os.path.join(runtime, "libcuda.so.1"), run_rt)
        run_quiet(stage)  # the no-op stage below finds everything in place
        commands = [("true", [true]), ("zcuda --version", [zcuda, "--version"]),
                    ("zcuda run --runtime-dir DIR -- true", [zcuda, "run", "--runtime-dir", run_rt, "--", true]),
                    ("zcuda stage --all (nothing to do)", stage)]
        print(f"\n{'command':<36} {'mean ms':>8} {'median':>8} {'min':>8} {'CPU ms':>8}   ({args.runs} runs after {args.warmup})")
        means = {}
        for label, argv in commands:
            for _ in range(args.warmup):
                timed_start(argv)
            samples = [timed_start(argv) for _ in range(args.runs)]
            walls = [w * 1000 for w, _ in samples]
            cpus = [c * 1000 for _, c in samples]
            means[label] = (statistics.mean(walls), statistics.mean(cpus))
            print(f"{label:<36} {statistics.mean(walls):8.2f} {statistics.median(walls):8.2f} {min(walls):8.2f} {statistics.mean(cpus):8.2f}")
        base_wall, base_cpu = means["true"]
        print()
        for label, _ in commands[1:]:
            wall, cpu = means[label]
            print(f"{label}: {wall - base_wall:.2f} ms wall, {cpu - base_cpu:.2f} ms CPU over true")
        print(f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
