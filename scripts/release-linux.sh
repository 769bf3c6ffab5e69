#!/usr/bin/env bash
# Makes the Linux release archive build/release-portable/zcuda-<version>-linux-x86_64.tar.gz: the
# portable zcuda (curl, OpenSSL, libarchive, fmt and spdlog linked in statically; glibc and the
# C++ runtime the machine's own) with zcuda-probe, the licences and the documentation. Builds the
# static libraries first when they are not cached (scripts/portable-deps.sh, about 16 minutes
# cold), then checks the archive: it unpacks, needs no library beyond glibc, and
# its zcuda answers --version and `detect --json` with an empty library path.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(./scripts/portable-deps.sh | tail -n 1)
export ZCUDA_PORTABLE_PREFIX=$prefix
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake --preset release-portable "${launcher[@]}" >/dev/null
cmake --build --preset release-portable
rm -f build/release-portable/zcuda-*-linux-x86_64.tar.gz
cpack --preset release-portable >/dev/null
archive=$(ls build/release-portable/zcuda-*-linux-x86_64.tar.gz)

check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
tar -xzf "$archive" -C "$check"
top=$(find "$check" -mindepth 1 -maxdepth 1 -type d)
for f in bin/zcuda bin/zcuda-probe LICENSE THIRD_PARTY_NOTICES.md README.md docs/cli.md licenses/curl/COPYING; do
  [[ -e $top/$f ]] || { echo "release-linux: $f is missing from $archive" >&2; exit 1; }
done
cmake -DFILE="$top/bin/zcuda" -DREADELF="$(command -v readelf)" -P cmake/check_needed.cmake
env -i PATH=/usr/bin:/bin HOME="$check" "$top/bin/zcuda" --version
env -i PATH=/usr/bin:/bin HOME="$check" "$top/bin/zcuda" --home "$check/home" detect --json >/dev/null
echo "release-linux: $archive ($(du -h "$archive" | cut -f1))"
