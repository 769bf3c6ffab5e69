#!/usr/bin/env bash
# Copies the portable Linux zcuda and zcuda-probe (the `release-portable` preset: curl, OpenSSL,
# libarchive, fmt and spdlog linked in) into DEST/bin, so the pair runs on a machine that has none
# of Debian's packages (the GPU validation machines; docs/validation/README.md). Only glibc and
# the C++ runtime are the machine's own (a newer one runs our binaries); no library is carried.
# Run there as DEST/bin/zcuda.
# Usage: scripts/carry-to-gpu-machine.sh DEST [BUILD_DIR]   (default build/release-portable;
#        scripts/release-linux.sh builds it)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: carry-to-gpu-machine.sh DEST [BUILD_DIR]}
build=${2:-build/release-portable}
[[ -x $build/bin/zcuda && -x $build/bin/zcuda-probe ]] || {
  echo "no zcuda build in $build (make one with scripts/release-linux.sh)" >&2; exit 2; }
# Refuses a build that still needs libraries the other machine may not have.
cmake -DFILE="$build/bin/zcuda" -DREADELF="$(command -v readelf)" -P "$repo/cmake/check_needed.cmake" >/dev/null
rm -rf "$dest" && mkdir -p "$dest/bin"
cp "$build/bin/zcuda" "$build/bin/zcuda-probe" "$dest/bin/"
echo "carried: zcuda and zcuda-probe, $(du -sh "$dest" | cut -f1) in $dest"
