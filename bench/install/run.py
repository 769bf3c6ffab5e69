#!/usr/bin/env python3
"""bench/install/run.sh's measures with nothing but Python 3, curl, openssl and a bsdtar (no nginx,
bc or Debian packages), for the GPU validation machines: `zcuda install` of a LibTorch-shaped zip
from a loopback server, side by side with curl -o, then openssl dgst -sha256, then bsdtar -xf;
zcuda's hashing alone against openssl and its extraction alone against bsdtar (zcuda-bench-tool,
bench/install/bench_tool.cpp). Medians of RUNS runs.

The server is this script (a ThreadingHTTPServer that answers with sendfile), in a process of its
own; both curl and zcuda fetch from it.

zcuda's extraction is timed with the workers it chooses and with one (its hashing still on a
thread of its own).

usage: bench/install/run.py ZCUDA BENCH_TOOL BSDTAR [--size-mib N] [--runs N] [--work DIR]
  ZCUDA       a built zcuda (the portable one on other machines)
  BENCH_TOOL  zcuda-bench-tool built against the same zcuda_core
  BSDTAR      e.g. the static one bench/install/reference-tools.sh builds
"""
import argparse
import hashlib
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


class SendfileHandler(http.server.BaseHTTPRequestHandler):
    """GET of a file under the served folder, whole, with sendfile: the server should not be what
    limits either side."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):
        path = os.path.join(self.server.root, os.path.basename(self.path))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        size = os.path.getsize(path)
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("Content-Type", "application/zip")
        self.end_headers()
        try:
            with open(path, "rb") as f:
                self.connection.sendfile(f)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the readiness check reads one byte and hangs up

    def log_message(self, *args):
        pass


def serve(root, port_file):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SendfileHandler)
    server.root = root
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


def timed(argv, **kwargs):
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zcuda")
    parser.add_argument("bench_tool")
    parser.add_argument("bsdtar")
    parser.add_argument("--size-mib", type=int, default=512)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", default="/tmp/zcuda-bench-install")
    parser.add_argument("--serve", nargs=2, metavar=("ROOT", "PORT_FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return
    zcuda, tool, bsdtar = (os.path.realpath(p) for p in (args.zcuda, args.bench_tool, args.bsdtar))
    for name in ("curl", "openssl"):
        if not shutil.which(name):
            sys.exit(f"bench: {name} is missing")
    work = args.work
    www = os.path.join(work, "www")
    os.makedirs(www, exist_ok=True)
    zip_path = os.path.join(www, f"libtorch-like-{args.size_mib}MiB.zip")
    if not os.path.exists(zip_path):
        print(f"bench: writing {zip_path}", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(HERE, "make_libtorch_like_zip.py"), zip_path + ".tmp", str(args.size_mib)], check=True)
        os.rename(zip_path + ".tmp", zip_path)
    zip_bytes = os.path.getsize(zip_path)
    digest = hashlib.sha256()
    with open(zip_path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    sha = digest.hexdigest()

    port_file = os.path.join(work, "port")
    if os.path.exists(port_file):
        os.remove(port_file)
    server = subprocess.Popen([sys.executable, os.path.abspath(__file__), "x", "x", "x", "--serve", www, port_file])
    try:
        for _ in range(100):
            if os.path.exists(port_file):
                break
            time.sleep(0.05)
        url = f"http://127.0.0.1:{open(port_file).read()}/{os.path.basename(zip_path)}"
        urllib.request.urlopen(url).read(1)
        manifest = os.path.join(work, "manifest.json")
        with open(manifest, "w") as f:
            json.dump({"schema": 1, "artifacts": [{
                "id": "libtorch-like", "component": "libtorch", "version": "bench", "os": "any", "url": url, "sha256": sha,
                "size": zip_bytes, "archive": "zip", "root": "libtorch", "license": "benchmark data",
                "expected_files": ["lib/library_00.dll"]}]}, f)

        samples = {k: [] for k in ("curl", "openssl", "bsdtar", "zcuda_hash", "zcuda_extract", "zcuda_extract_one", "zcuda_install")}
        dl, home = os.path.join(work, "dl"), os.path.join(work, "home")
        for run in range(1, args.runs + 1):
            print(f"bench: run {run} of {args.runs}", file=sys.stderr)
            for d in (dl, home, os.path.join(work, "out-bsdtar"), os.path.join(work, "out-zcuda")):
                shutil.rmtree(d, ignore_errors=True)
            os.makedirs(dl)
            os.makedirs(os.path.join(work, "out-bsdtar"))
            downloaded = os.path.join(dl, "a.zip")
            samples["curl"].append(timed(["curl", "-sf", "-o", downloaded, url]))
            samples["openssl"].append(timed(["openssl", "dgst", "-sha256", downloaded]))
            samples["bsdtar"].append(timed([bsdtar, "-xf", downloaded, "-C", os.path.join(work, "out-bsdtar")]))
            shutil.rmtree(os.path.join(work, "out-bsdtar"))
            samples["zcuda_hash"].append(timed([tool, "hash", downloaded]))
            samples["zcuda_extract"].append(timed([tool, "extract", downloaded, os.path.join(work, "out-zcuda"), "libtorch"]))
            shutil.rmtree(os.path.join(work, "out-zcuda"))
            samples["zcuda_extract_one"].append(timed([tool, "extract", downloaded, os.path.join(work, "out-zcuda"), "libtorch", "1"]))
            shutil.rmtree(os.path.join(work, "out-zcuda"))
            shutil.rmtree(dl)
            out = os.path.join(work, "install.json")
            with open(out, "w") as f:
                start = time.perf_counter()
                subprocess.run([zcuda, "--home", home, "--json", "install", "--manifest", manifest, "--no-wait"], check=True, stdout=f)
                samples["zcuda_install"].append(time.perf_counter() - start)
            artifact = json.load(open(out))["artifacts"][0]
            if artifact["state"] != "installed":
                sys.exit(f"bench: zcuda install did not install: {artifact}")
            shutil.rmtree(home)
    finally:
        server.terminate()
        server.wait()

    with zipfile.ZipFile(zip_path) as z:
        infos = z.infolist()
    m = {k: statistics.median(v) for k, v in samples.items()}
    pipeline = m["curl"] + m["openssl"] + m["bsdtar"]
    version = subprocess.run([zcuda, "--version"], capture_output=True, text=True).stdout.strip()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"zip: {os.path.basename(zip_path)}, {zip_bytes} bytes, {len(infos)} entries, {sum(i.file_size for i in infos)} bytes unpacked; "
          f"{args.runs} runs, medians; {os.cpu_count()} CPUs")
    print(f"zcuda: {zcuda} ({version}); load average at the end: {load}; server: Python sendfile")
    print(f"  curl -o                        {m['curl']:.3f} s")
    print(f"  openssl dgst -sha256           {m['openssl']:.3f} s")
    print(f"  bsdtar -xf                     {m['bsdtar']:.3f} s")
    print(f"  curl + openssl + bsdtar        {pipeline:.3f} s")
    print(f"  zcuda install                  {m['zcuda_install']:.3f} s   ratio to the pipeline: {m['zcuda_install'] / pipeline:.3f}   (target <= 0.80, stretch 0.65)")
    print(f"  zcuda hashing alone            {m['zcuda_hash']:.3f} s   time ratio to openssl: {m['zcuda_hash'] / m['openssl']:.3f}")
    print(f"  zcuda extraction alone         {m['zcuda_extract']:.3f} s   ratio to bsdtar: {m['zcuda_extract'] / m['bsdtar']:.3f}   (target <= 1.1)")
    print(f"  zcuda extraction, one worker   {m['zcuda_extract_one']:.3f} s   ratio to bsdtar: {m['zcuda_extract_one'] / m['bsdtar']:.3f}")


if __name__ == "__main__":
    main()
