#!/usr/bin/env bash
# Builds the libraries zcuda links, static, for x86_64-w64-mingw32, from Debian's source packages
# (zlib comes ready-made from Debian's libz-mingw-w64-dev). The result is a prefix cached outside
# the repository (scripts/lib/deb-source-build.sh, shared with scripts/portable-deps.sh) and
# rebuilt only when this script, the toolchain file or a source package's version changes. Prints
# the prefix on its last line of output.
#
# Needs deb-src entries in apt's sources (scripts/install-deps.sh adds them) and the MinGW-w64
# toolchain.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolchain="$repo/cmake/toolchains/x86_64-w64-mingw32.cmake"
triple=x86_64-w64-mingw32
name=mingw64
recipe=("$0" "$toolchain")
source "$repo/scripts/lib/deb-source-build.sh"

# GoogleTest is Debian's own source copy from libgtest-dev, the same one the Linux build uses.
gtest_src=/usr/src/googletest
gtest_version=$(dpkg-query -W -f='${Version}' libgtest-dev 2>/dev/null || true)
[[ -d $gtest_src && -n $gtest_version ]] || { log "libgtest-dev is missing: run scripts/install-deps.sh"; exit 1; }

deps_begin curl openssl libarchive fmtlib spdlog nlohmann-json3 cli11 -- "googletest $gtest_version"
cmake_toolchain_args=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DZCUDA_MINGW_PREFIX="$stage")
log "building into $prefix (about 11 minutes on 2 cores)"

src=$(fetch_source openssl)
log "openssl: $(basename "$src")"
# libcrypto for SHA-256; libssl only for the tests' HTTPS server.
run_logged openssl bash -c "cd '$src' && env -u AR -u RANLIB ./Configure mingw64 no-shared no-tests no-engine \
  no-module --cross-compile-prefix=$triple- CC=gcc-posix --prefix='$stage' --libdir=lib \
  && make -j $jobs build_libs && make install_dev"

# Autotools builds take the compilers from here (OpenSSL above adds the prefix itself).
export CC=$triple-gcc-posix AR=$triple-ar RANLIB=$triple-ranlib

src=$(fetch_source curl)
log "curl: $(basename "$src")"
# Schannel: Windows' own TLS and certificate store (see docs/windows.md).
run_logged curl bash -c "cd '$src' && ./configure --host=$triple --prefix='$stage' --disable-shared --enable-static \
  --with-schannel --with-zlib --without-brotli --without-zstd --without-libpsl --without-nghttp2 \
  --without-libidn2 --without-librtmp --without-libssh2 --disable-ldap --disable-ldaps --disable-ftp \
  --disable-rtsp --disable-dict --disable-telnet --disable-tftp --disable-pop3 --disable-imap --disable-smb \
  --disable-smtp --disable-gopher --disable-mqtt --disable-manual \
  && make -j $jobs -C lib && make -C lib install && make -C include install"

src=$(fetch_source libarchive)
log "libarchive: $(basename "$src")"
# zip and tar.gz are all zcuda reads: zlib only. (Its CMake build crashes CMake 3.25 here.) Debian's
# patches touch configure.ac and Makefile.am, so regenerate as Debian's own build does.
run_logged libarchive bash -c "cd '$src' && autoreconf -fi && ./configure --host=$triple --prefix='$stage' \
  --disable-shared --enable-static --disable-bsdtar --disable-bsdcpio --disable-bsdcat --disable-acl \
  --disable-xattr --without-bz2lib --without-lzma --without-zstd --without-lz4 --without-libb2 --without-iconv \
  --without-xml2 --without-expat --without-openssl --without-cng --without-mbedtls --without-nettle \
  && make -j $jobs libarchive.la && make install-libLTLIBRARIES install-includeHEADERS"

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
deps_finish
