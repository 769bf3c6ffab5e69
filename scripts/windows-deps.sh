#!/usr/bin/env bash
# Builds the libraries zcuda links, static, for x86_64-w64-mingw32, from Debian's source packages
# (zlib comes ready-made from Debian's libz-mingw-w64-dev). The result is a prefix cached outside
# the repository and rebuilt only when it is missing or when this script, the toolchain file or a
# source package's version changes. Prints the prefix on its last line of output.
#
#   ZCUDA_DEPS_CACHE   where prefixes live (default: ${XDG_CACHE_HOME:-~/.cache}/zcuda-build)
#
# Needs deb-src entries in apt's sources (scripts/install-deps.sh adds them) and the MinGW-w64
# toolchain. A failed or interrupted build leaves no prefix behind, only a scratch folder that the
# next run removes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolchain="$repo/cmake/toolchains/x86_64-w64-mingw32.cmake"
triple=x86_64-w64-mingw32
cache=${ZCUDA_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zcuda-build}
jobs=$(nproc)
log() { echo "windows-deps: $*" >&2; }

# Source packages, newest first, as apt's (signed) source index lists them.
packages=(curl openssl libarchive fmtlib spdlog nlohmann-json3 cli11)
versions_of() { apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V -r -u; }

# GoogleTest is Debian's own source copy from libgtest-dev, the same one the Linux build uses.
gtest_src=/usr/src/googletest
gtest_version=$(dpkg-query -W -f='${Version}' libgtest-dev 2>/dev/null || true)
[[ -d $gtest_src && -n $gtest_version ]] || { log "libgtest-dev is missing: run scripts/install-deps.sh"; exit 1; }

listing=""
for p in "${packages[@]}"; do
  v=$(versions_of "$p" | tr '\n' ' ')
  [[ -n $v ]] || { log "apt knows no source package $p: run scripts/install-deps.sh (it adds deb-src entries)"; exit 1; }
  listing+="$p $v"$'\n'
done
listing+="googletest $gtest_version"$'\n'
key=$( { cat "$0" "$toolchain"; printf '%s' "$listing"; } | sha256sum | cut -c1-16)
prefix="$cache/mingw64-$key"
if [[ -f $prefix/zcuda-deps.txt ]]; then
  log "cached: $prefix"
  echo "$prefix"
  exit 0
fi

mkdir -p "$cache"
rm -rf "$cache"/scratch-*  # what an interrupted run left
scratch=$(mktemp -d "$cache/scratch-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
stage="$scratch/prefix"
mkdir -p "$stage" "$scratch/src"
started=$(date +%s)
: >"$stage/zcuda-deps.txt"

# The newest version whose source package downloads in full and unpacks (a security update's
# files can be missing from a mirror for a while); apt checks every file against the index.
fetch_source() {
  local p=$1 v
  for v in $(versions_of "$p"); do
    rm -rf "$scratch/src/$p" && mkdir -p "$scratch/src/$p"
    if (cd "$scratch/src/$p" && apt-get source -qq "$p=$v" >/dev/null 2>&1); then
      echo "$p $v" >>"$stage/zcuda-deps.txt"
      find "$scratch/src/$p" -mindepth 1 -maxdepth 1 -type d -print -quit
      return 0
    fi
    log "source package $p $v did not download in full; trying an older one"
  done
  log "no source package of $p could be downloaded"
  return 1
}

cmake_install() {  # SOURCE_DIR [cmake options...]
  local src=$1; shift
  local build="$scratch/build-$(basename "$src")"
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DZCUDA_MINGW_PREFIX="$stage" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$stage" -DBUILD_SHARED_LIBS=OFF "$@" >"$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; return 1; }
  cmake --build "$build" -j "$jobs" >>"$build.log" 2>&1 && cmake --install "$build" >>"$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; return 1; }
}

log "building into $prefix (about 11 minutes on 2 cores)"

src=$(fetch_source openssl)
log "openssl: $(basename "$src")"
# libcrypto for SHA-256; libssl only for the tests' HTTPS server.
(cd "$src" && env -u AR -u RANLIB ./Configure mingw64 no-shared no-tests no-engine no-module --cross-compile-prefix=$triple- \
   CC=gcc-posix --prefix="$stage" --libdir=lib >"$scratch/openssl.log" 2>&1 \
   && make -j "$jobs" build_libs >>"$scratch/openssl.log" 2>&1 && make install_dev >>"$scratch/openssl.log" 2>&1) \
  || { tail -30 "$scratch/openssl.log" >&2; exit 1; }

# Autotools builds take the compilers from here (OpenSSL above adds the prefix itself).
export CC=$triple-gcc-posix AR=$triple-ar RANLIB=$triple-ranlib

src=$(fetch_source curl)
log "curl: $(basename "$src")"
# Schannel: Windows' own TLS and certificate store (see docs/windows.md).
(cd "$src" && ./configure --host=$triple --prefix="$stage" --disable-shared --enable-static --with-schannel --with-zlib \
   --without-brotli --without-zstd --without-libpsl --without-nghttp2 --without-libidn2 --without-librtmp \
   --without-libssh2 --disable-ldap --disable-ldaps --disable-ftp --disable-rtsp --disable-dict --disable-telnet \
   --disable-tftp --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt \
   --disable-manual >"$scratch/curl.log" 2>&1 \
   && make -j "$jobs" -C lib >>"$scratch/curl.log" 2>&1 && make -C lib install >>"$scratch/curl.log" 2>&1 \
   && make -C include install >>"$scratch/curl.log" 2>&1) \
  || { tail -30 "$scratch/curl.log" >&2; exit 1; }

src=$(fetch_source libarchive)
log "libarchive: $(basename "$src")"
# zip and tar.gz are all zcuda reads: zlib only. (Its CMake build crashes CMake 3.25 here.) Debian's
# patches touch configure.ac and Makefile.am, so regenerate as Debian's own build does.
(cd "$src" && autoreconf -fi >"$scratch/libarchive.log" 2>&1 && ./configure --host=$triple --prefix="$stage" --disable-shared --enable-static --disable-bsdtar \
   --disable-bsdcpio --disable-bsdcat --disable-acl --disable-xattr --without-bz2lib --without-lzma --without-zstd \
   --without-lz4 --without-libb2 --without-iconv --without-xml2 --without-expat --without-openssl --without-cng \
   --without-mbedtls --without-nettle >>"$scratch/libarchive.log" 2>&1 \
   && make -j "$jobs" libarchive.la >>"$scratch/libarchive.log" 2>&1 \
   && make install-libLTLIBRARIES install-includeHEADERS >>"$scratch/libarchive.log" 2>&1) \
  || { tail -30 "$scratch/libarchive.log" >&2; exit 1; }

src=$(fetch_source fmtlib)
log "fmt: $(basename "$src")"
cmake_install "$src" -DFMT_DOC=OFF -DFMT_TEST=OFF
src=$(fetch_source spdlog)
log "spdlog: $(basename "$src")"
cmake_install "$src" -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_EXAMPLE=OFF -DSPDLOG_BUILD_TESTS=OFF
src=$(fetch_source nlohmann-json3)
log "nlohmann-json: $(basename "$src")"
cmake_install "$src" -DJSON_BuildTests=OFF
src=$(fetch_source cli11)
log "cli11: $(basename "$src")"
cmake_install "$src" -DCLI11_BUILD_TESTS=OFF -DCLI11_BUILD_EXAMPLES=OFF -DCLI11_BUILD_DOCS=OFF
log "googletest: $gtest_src ($gtest_version)"
cmake_install "$gtest_src" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON
echo "googletest $gtest_version" >>"$stage/zcuda-deps.txt"
echo "zlib $(dpkg-query -W -f='${Version}' libz-mingw-w64-dev) (libz-mingw-w64-dev)" >>"$stage/zcuda-deps.txt"

rm -rf "$prefix"
mv "$stage" "$prefix"
for old in "$cache"/mingw64-*; do  # prefixes of older versions or recipes
  [[ $old == "$prefix" ]] || rm -rf "$old"
done
log "done in $(( $(date +%s) - started )) s: $prefix"
echo "$prefix"
