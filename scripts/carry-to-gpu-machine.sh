#!/usr/bin/env bash
# Copies a Linux build of zcuda and zcuda-probe, with the shared libraries zcuda links other than
# the C library's own, into DEST/bin and DEST/lib, so the pair runs on a machine that has none of
# Debian's packages (the GPU validation machines; docs/validation/README.md). zcuda's RUNPATH is
# set to DEST/lib (patchelf), not LD_LIBRARY_PATH, so the programs zcuda starts do not inherit
# our copies of zlib or OpenSSL. Run there as DEST/bin/zcuda.
# Usage: scripts/carry-to-gpu-machine.sh DEST [BUILD_DIR]   (default build/release)
set -euo pipefail
dest=${1:?usage: carry-to-gpu-machine.sh DEST [BUILD_DIR]}
build=${2:-build/release}
[[ -x $build/bin/zcuda && -x $build/bin/zcuda-probe ]] || { echo "no zcuda build in $build" >&2; exit 2; }
rm -rf "$dest" && mkdir -p "$dest/bin" "$dest/lib"
cp "$build/bin/zcuda" "$build/bin/zcuda-probe" "$dest/bin/"
# glibc, the dynamic loader and the C++ runtime stay the machine's own (a newer one runs our
# binaries); every other library zcuda needs travels.
ldd "$build/bin/zcuda" | awk '/=> \//{print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libstdc++.so.*|libgcc_s.so.*) ;;
    *) cp -L "$lib" "$dest/lib/" ;;
  esac
done
command -v patchelf >/dev/null || { echo "patchelf is needed (apt-get install patchelf)" >&2; exit 2; }
patchelf --set-rpath '$ORIGIN/../lib' "$dest/bin/zcuda"
# RUNPATH is not inherited: each carried library finds its own dependencies beside itself.
for lib in "$dest"/lib/*; do patchelf --set-rpath '$ORIGIN' "$lib"; done
echo "carried: $(ls "$dest/lib" | wc -l) libraries, $(du -sh "$dest" | cut -f1) in $dest"
