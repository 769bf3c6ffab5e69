#!/usr/bin/env bash
# Builds the libraries zcuda links, static, for x86_64-w64-mingw32, from Debian's source packages
# (zlib comes ready-made from Debian's libz-mingw-w64-dev). The result is a prefix cached outside
# the repository (scripts/lib/deb-source-build.sh, shared with scripts/portable-deps.sh), rebuilt
# only when this script, the toolchain file or a source package's version changes. Prints the
# prefix on its last line of output. OpenSSL, curl, libarchive and the CMake-built libraries build
# side by side.
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
name=mingw64
recipe=("$0" "$toolchain")
source "$repo/scripts/lib/deb-source-build.sh"

# GoogleTest is Debian's own source copy from libgtest-dev, the same one the Linux build uses.
gtest_src=/usr/src/googletest
gtest_version=$(dpkg-query -W -f='${Version}' libgtest-dev 2>/dev/null || true)
[[ -d $gtest_src && -n $gtest_version ]] || { log "libgtest-dev is missing: run scripts/install-deps.sh"; exit 1; }

deps_begin curl openssl libarchive fmtlib spdlog nlohmann-json3 cli11 -- "googletest $gtest_version"
cmake_toolchain_args=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DZCUDA_MINGW_PREFIX="$stage")
log "building into $prefix (OpenSSL, curl and libarchive from source: minutes, once)"
# Autotools builds take these compilers (OpenSSL's Configure adds the prefix itself), and no
# debug information (their default is -g -O2): 16% of libarchive's compile time.
autotools_env=(env CC=$triple-gcc-posix AR=$triple-ar RANLIB=$triple-ranlib CFLAGS=-O2)

src=$(fetch_source openssl)
log "openssl: $(basename "$src")"
# libcrypto for SHA-256 and Ed25519; libssl only for the tests' HTTPS server. Without the
# algorithms and protocols nothing here uses, it compiles in 23% less time (254 s of CPU, not 328).
openssl_unused="no-aria no-bf no-blake2 no-camellia no-cast no-des no-dsa no-idea no-md4 no-mdc2 no-ocb no-rc2
  no-rc4 no-rmd160 no-scrypt no-seed no-siphash no-siv no-sm2 no-sm3 no-sm4 no-whirlpool no-srp no-ts no-cms
  no-ocsp no-ct no-dtls no-ssl3 no-srtp no-gost no-rfc3779 no-ui-console no-cmp"
in_background openssl bash -c "cd '$src' && env -u AR -u RANLIB ./Configure mingw64 no-shared no-tests no-engine \
  no-module no-legacy no-comp ${openssl_unused//$'\n'/ } --cross-compile-prefix=$triple- CC=gcc-posix \
  --prefix='$stage' --libdir=lib && make -j $jobs build_libs && make install_dev"

src=$(fetch_source curl)
log "curl: $(basename "$src")"
# Schannel: Windows' own TLS and certificate store (see docs/windows.md).
in_background curl bash -c "cd '$src' && ${autotools_env[*]} ./configure --host=$triple --prefix='$stage' \
  --disable-shared --enable-static --disable-dependency-tracking --with-schannel --with-zlib --without-brotli \
  --without-zstd --without-libpsl --without-nghttp2 --without-libidn2 --without-librtmp --without-libssh2 \
  --disable-ldap --disable-ldaps --disable-ftp --disable-rtsp --disable-dict --disable-telnet --disable-tftp \
  --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt --disable-manual \
  && make -j $jobs -C lib && make -C lib install && make -C include install"

src=$(fetch_source libarchive)
log "libarchive: $(basename "$src")"
# zip and tar.gz are all zcuda reads: zlib only. (Its CMake build crashes CMake 3.25 here.) Debian's
# patches touch configure.ac and Makefile.am, so regenerate as Debian's own build does.
in_background libarchive bash -c "cd '$src' && autoreconf -fi && ${autotools_env[*]} ./configure --host=$triple \
  --prefix='$stage' --disable-shared --enable-static --disable-dependency-tracking --disable-bsdtar \
  --disable-bsdcpio --disable-bsdcat --disable-acl --disable-xattr --without-bz2lib --without-lzma --without-zstd \
  --without-lz4 --without-libb2 --without-iconv --without-xml2 --without-expat --without-openssl --without-cng \
  --without-mbedtls --without-nettle \
  && make -j $jobs libarchive.la && make install-libLTLIBRARIES install-includeHEADERS"

# The CMake-built libraries, one after another (spdlog finds fmt in the prefix).
fmt_src=$(fetch_source fmtlib)
spdlog_src=$(fetch_source spdlog)
json_src=$(fetch_source nlohmann-json3)
cli11_src=$(fetch_source cli11)
log "fmt, spdlog, nlohmann-json, cli11: $(basename "$fmt_src") $(basename "$spdlog_src") $(basename "$json_src") $(basename "$cli11_src")"
log "googletest: $gtest_src ($gtest_version)"
cmake_libraries() {  # (chained with &&: set -e does not act inside run_logged's `||`)
  cmake_install "$fmt_src" -DFMT_DOC=OFF -DFMT_TEST=OFF \
    && cmake_install "$spdlog_src" -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_EXAMPLE=OFF -DSPDLOG_BUILD_TESTS=OFF \
    && cmake_install "$json_src" -DJSON_BuildTests=OFF \
    && cmake_install "$cli11_src" -DCLI11_BUILD_TESTS=OFF -DCLI11_BUILD_EXAMPLES=OFF -DCLI11_BUILD_DOCS=OFF \
    && cmake_install "$gtest_src" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON
}
in_background cmake-libraries cmake_libraries

wait_for_background
echo "googletest $gtest_version" >>"$stage/zcuda-deps.txt"
echo "zlib $(dpkg-query -W -f='${Version}' libz-mingw-w64-dev) (libz-mingw-w64-dev)" >>"$stage/zcuda-deps.txt"
deps_finish
