#!/usr/bin/env bash
# Benchmark: `zcuda install` of a LibTorch-shaped zip from a fast loopback server (nginx), side by
# side with the best a person can do with standard tools: curl -o, then openssl dgst -sha256, then
# bsdtar -xf (sha256sum and unzip shown for reference). Also zcuda's hashing alone against openssl
# and its extraction alone against bsdtar. Not part of CI; figures go to docs/performance.md.
#
# usage: bench/install/run.sh            (from the repository root)
# env:   SIZE_MIB=512  zip size (the issue's target is ~1024; smaller by default for disk and time)
#        RUNS=3        repetitions; the median of each measure is reported
#        WORK=/tmp/zcuda-bench   scratch folder (needs ~5x SIZE_MIB free)
#        ZCUDA=build/release/bin/zcuda  PORT=18473
set -euo pipefail

SIZE_MIB=${SIZE_MIB:-512}
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/zcuda-bench}
PORT=${PORT:-18473}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
ZCUDA=${ZCUDA:-$REPO/build/release/bin/zcuda}
BUILD_DIR=$(dirname "$(dirname "$ZCUDA")")

for tool in curl openssl bsdtar unzip sha256sum python3 g++; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done
if ! command -v nginx >/dev/null; then
  # Benchmark-only tool: installed here, not in scripts/install-deps.sh.
  echo "bench: installing nginx-light" >&2
  apt-get install -y -qq --no-install-recommends nginx-light >/dev/null
fi
[[ -x $ZCUDA ]] || { echo "bench: build zcuda first: cmake --preset release && cmake --build --preset release --target zcuda" >&2; exit 1; }

mkdir -p "$WORK/www" "$WORK/nginx/logs"
ZIP="$WORK/www/libtorch-like-${SIZE_MIB}MiB.zip"
if [[ ! -f $ZIP ]]; then
  echo "bench: writing $ZIP" >&2
  python3 "$REPO/bench/install/make_libtorch_like_zip.py" "$ZIP.tmp" "$SIZE_MIB"
  mv "$ZIP.tmp" "$ZIP"
fi
ZIP_BYTES=$(stat -c %s "$ZIP")
SHA=$(openssl dgst -sha256 -r "$ZIP" | cut -d' ' -f1)
URL="http://127.0.0.1:$PORT/$(basename "$ZIP")"

# zcuda's hashing and extraction alone, built against the same zcuda_core.
TOOL="$WORK/zcuda-bench-tool"
# A portable build (release-portable) links the static libraries of its prefix, as zcuda does.
PREFIX=$(sed -n 's/^ZCUDA_PORTABLE_PREFIX:PATH=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
if [[ -n $PREFIX ]]; then
  LIBS=("$PREFIX/lib/libcurl.a" "$PREFIX/lib/libssl.a" "$PREFIX/lib/libarchive.a" "$PREFIX/lib/libcrypto.a"
        "$PREFIX/lib/libspdlog.a" "$PREFIX/lib/libfmt.a" "$PREFIX/lib/libz.a" -lpthread)
else
  LIBS=(-lcurl -lssl -lcrypto -larchive -lspdlog -lfmt)
fi
g++ -std=c++23 -O2 -I"$REPO/include" "$REPO/bench/install/bench_tool.cpp" "$BUILD_DIR/src/core/libzcuda_core.a" \
    "${LIBS[@]}" -o "$TOOL"

cat > "$WORK/nginx/nginx.conf" <<CONF
worker_processes 1;
error_log $WORK/nginx/logs/error.log;
pid $WORK/nginx/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path $WORK/nginx/tmp;
  proxy_temp_path $WORK/nginx/tmp;
  fastcgi_temp_path $WORK/nginx/tmp;
  uwsgi_temp_path $WORK/nginx/tmp;
  scgi_temp_path $WORK/nginx/tmp;
  server {
    listen 127.0.0.1:$PORT;
    root $WORK/www;
  }
}
CONF
mkdir -p "$WORK/nginx/tmp"
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon on;'
trap 'nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -s stop 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -sf -o /dev/null -r 0-0 "$URL" && break; sleep 0.1; done

cat > "$WORK/manifest.json" <<JSON
{"schema": 1, "artifacts": [{"id": "libtorch-like", "component": "libtorch", "version": "bench", "os": "any",
  "url": "$URL", "sha256": "$SHA", "size": $ZIP_BYTES, "archive": "zip", "root": "libtorch",
  "license": "benchmark data", "expected_files": ["lib/library_00.dll"]}]}
JSON

now() { date +%s.%N; }
# Runs a command and prints its wall time in seconds.
timed() { local t0; t0=$(now); "$@" >/dev/null 2>&1; echo "$(now) - $t0" | bc; }

declare -A samples
add() { samples[$1]+="$2 "; }
median() { tr ' ' '\n' <<<"${samples[$1]}" | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

for run in $(seq "$RUNS"); do
  echo "bench: run $run of $RUNS" >&2
  rm -rf "$WORK/dl" "$WORK/out-"* "$WORK/home"; mkdir -p "$WORK/dl" "$WORK/out-bsdtar" "$WORK/out-unzip"
  add curl "$(timed curl -sf -o "$WORK/dl/a.zip" "$URL")"
  add openssl "$(timed openssl dgst -sha256 "$WORK/dl/a.zip")"
  add bsdtar "$(timed bsdtar -xf "$WORK/dl/a.zip" -C "$WORK/out-bsdtar")"
  add sha256sum "$(timed sha256sum "$WORK/dl/a.zip")"
  add unzip "$(timed unzip -q "$WORK/dl/a.zip" -d "$WORK/out-unzip")"
  rm -rf "$WORK/out-"*
  add zcuda_hash "$(timed "$TOOL" hash "$WORK/dl/a.zip")"
  add zcuda_extract "$(timed "$TOOL" extract "$WORK/dl/a.zip" "$WORK/out-zcuda" libtorch)"
  rm -rf "$WORK/out-"* "$WORK/dl"
  t0=$(now)
  "$ZCUDA" --home "$WORK/home" --json install --manifest "$WORK/manifest.json" --no-wait > "$WORK/install.json"
  add zcuda_install "$(echo "$(now) - $t0" | bc)"
  python3 -c "import json,sys; a=json.load(open(sys.argv[1]))['artifacts'][0]; assert a['state']=='installed', a" "$WORK/install.json"
  rm -rf "$WORK/home"
done

unpacked=$(python3 -c "import zipfile,sys; print(sum(i.file_size for i in zipfile.ZipFile(sys.argv[1]).infolist()))" "$ZIP")
entries=$(python3 -c "import zipfile,sys; print(len(zipfile.ZipFile(sys.argv[1]).infolist()))" "$ZIP")
c=$(median curl); o=$(median openssl); b=$(median bsdtar); s=$(median sha256sum); u=$(median unzip)
zh=$(median zcuda_hash); ze=$(median zcuda_extract); zi=$(median zcuda_install)
pipeline=$(echo "$c + $o + $b" | bc)
ratio() { echo "scale=3; $1 / $2" | bc; }
cat <<REPORT
zip: $(basename "$ZIP"), $ZIP_BYTES bytes, $entries entries, $unpacked bytes unpacked; $RUNS runs, medians; $(nproc) CPUs
zcuda: $ZCUDA ($("$ZCUDA" --version)); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)
  curl -o                        $c s
  openssl dgst -sha256           $o s
  bsdtar -xf                     $b s
  curl + openssl + bsdtar        $pipeline s
  sha256sum (reference)          $s s
  unzip (reference)              $u s
  zcuda install                  $zi s   ratio to the pipeline: $(ratio "$zi" "$pipeline")   (target <= 0.80, stretch 0.65)
  zcuda hashing alone            $zh s   time ratio to openssl: $(ratio "$zh" "$o")   (target: speed >= 0.95x, time <= 1.053)
  zcuda extraction alone         $ze s   ratio to bsdtar: $(ratio "$ze" "$b")   (target <= 1.1)
REPORT
