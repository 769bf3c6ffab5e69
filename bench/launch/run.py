#!/usr/bin/env python3
"""What a launch costs (issue 38): each of `zcuda --version`, `zcuda run --runtime-dir DIR -- true`
and a `zcuda stage` with nothing to do, started RUNS times interleaved with `true` in one run
(true, command, true, command, ...), so that both see the same machine. Prints, per command,
min / median / max of its wall time and of `true`'s, and the difference of the medians. Python 3
only: the GPU validation machines have none of Debian's packages.

usage: bench/launch/run.py ZCUDA [--runs N] [--warmup N]   (ZCUDA: a built zcuda, e.g. the portable one)
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(argv, env):
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, _ = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: {' '.join(argv)} exited with {os.waitstatus_to_exitcode(status)}")
    return wall


def describe(values):
    ms = [v * 1000 for v in values]
    return f"min {min(ms):7.2f}  median {statistics.median(ms):7.2f}  max {max(ms):7.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("zcuda")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    zcuda = os.path.realpath(args.zcuda)
    true = shutil.which("true") or "/bin/true"
    work = tempfile.mkdtemp(prefix="zcuda-launch-bench-")
    try:
        env = dict(os.environ, ZCUDA_HOME=os.path.join(work, "home"), NO_COLOR="1")
        runtime = os.path.join(work, "runtime")
        app = os.path.join(work, "app")
        os.makedirs(runtime)
        os.makedirs(app)
        # A runtime folder with a driver library, and an app folder staged from it once: the
        # stage below then has nothing to do, as in a second launch of an application.
        with open(os.path.join(runtime, "libcuda.so.1"), "wb") as f:
            f.write(b"\x7fELF" + bytes(4096))
        with open(os.path.join(app, "libcuda.so.1"), "wb") as f:
            f.write(b"\x7fELF" + bytes(2048))
        subprocess.run([zcuda, "stage", "--all", "--runtime-dir", runtime, app], env=env, check=True, stdout=subprocess.DEVNULL)
        commands = {
            "zcuda --version": [zcuda, "--version"],
            "zcuda run --runtime-dir DIR -- true": [zcuda, "run", "--runtime-dir", runtime, "--", true],
            "zcuda stage (nothing to do)": [zcuda, "stage", "--all", "--runtime-dir", runtime, app],
        }
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {args.runs} runs each, interleaved with true")
        for name, argv in commands.items():
            for _ in range(args.warmup):
                timed([true], env)
                timed(argv, env)
            base, measured = [], []
            for _ in range(args.runs):
                base.append(timed([true], env))
                measured.append(timed(argv, env))
            over = (statistics.median(measured) - statistics.median(base)) * 1000
            print(f"{name}\n  command: {describe(measured)}\n  true:    {describe(base)}\n  over true (medians): {over:.2f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
