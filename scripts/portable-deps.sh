#!/usr/bin/env bash
# Builds the libraries the portable Linux zcuda links statically (the `release-portable` preset):
# zlib, OpenSSL, libcurl, libarchive, fmt and spdlog, from Debian's source packages, each with only
# what zcuda uses, as position-independent static archives. glibc and the C++ runtime are not
# among them: they stay shared so zcuda can dlopen HIP and CUDA. The result is a prefix cached
# outside the repository (scripts/lib/deb-source-build.sh, shared with scripts/windows-deps.sh),
# rebuilt only when this recipe, the compiler or a source package's version changes. Prints the
# prefix on its last line of output. About 16 minutes on 2 busy cores when cold.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
name=portable
recipe=("$0")
source "$repo/scripts/lib/deb-source-build.sh"
cmake_toolchain_args=(-DCMAKE_POSITION_INDEPENDENT_CODE=ON)

deps_begin zlib openssl curl libarchive fmtlib spdlog -- "compiler $(gcc -dumpfullversion) $(gcc -dumpmachine)"
log "building into $prefix (about 16 minutes on 2 cores)"
export CFLAGS="-O2 -fPIC" CPPFLAGS="-I$stage/include" LDFLAGS="-L$stage/lib"

src=$(fetch_source zlib)
log "zlib: $(basename "$src")"
run_logged zlib bash -c "cd '$src' && ./configure --static --prefix='$stage' && make -j $jobs libz.a && make install"

src=$(fetch_source openssl)
log "openssl: $(basename "$src")"
# libcrypto for SHA-256, libssl for HTTPS. OPENSSLDIR is where Debian, Ubuntu, Arch and most
# others keep certs/ and cert.pem (curl falls back to it; http.cpp also searches the usual bundles).
run_logged openssl bash -c "cd '$src' && ./Configure linux-x86_64 no-shared no-tests no-engine no-module no-legacy \
  no-comp no-dso --prefix='$stage' --libdir=lib --openssldir=/etc/ssl && make -j $jobs build_libs && make install_dev"

src=$(fetch_source curl)
log "curl: $(basename "$src")"
# Only http, https and file, over OpenSSL and zlib; no CA path is compiled in (see above).
run_logged curl bash -c "cd '$src' && ./configure --prefix='$stage' --disable-shared --enable-static --with-pic \
  --with-openssl='$stage' --with-zlib='$stage' --without-ca-bundle --without-ca-path --with-ca-fallback \
  --without-brotli --without-zstd --without-libpsl --without-nghttp2 --without-nghttp3 --without-ngtcp2 \
  --without-libidn2 --without-librtmp --without-libssh2 --without-libssh --without-gssapi --without-libgsasl \
  --disable-ldap --disable-ldaps --disable-ftp --disable-rtsp --disable-dict --disable-telnet --disable-tftp \
  --disable-pop3 --disable-imap --disable-smb --disable-smtp --disable-gopher --disable-mqtt --disable-ntlm \
  --disable-ntlm-wb --disable-kerberos-auth --disable-negotiate-auth --disable-manual --disable-docs \
  && make -j $jobs -C lib && make -C lib install && make -C include install"

src=$(fetch_source libarchive)
log "libarchive: $(basename "$src")"
# zip and tar.gz are all zcuda reads: zlib only. Debian's patches touch configure.ac and
# Makefile.am, so regenerate as Debian's own build does.
run_logged libarchive bash -c "cd '$src' && autoreconf -fi && ./configure --prefix='$stage' --disable-shared \
  --enable-static --with-pic --disable-bsdtar --disable-bsdcpio --disable-bsdcat --disable-acl --disable-xattr \
  --without-bz2lib --without-lzma --without-zstd --without-lz4 --without-libb2 --without-iconv --without-xml2 \
  --without-expat --without-openssl --without-mbedtls --without-nettle \
  && make -j $jobs libarchive.la && make install-libLTLIBRARIES install-includeHEADERS"

src=$(fetch_source fmtlib)
log "fmt: $(basename "$src")"
cmake_install "$src" -DFMT_DOC=OFF -DFMT_TEST=OFF
src=$(fetch_source spdlog)
log "spdlog: $(basename "$src")"
cmake_install "$src" -DSPDLOG_FMT_EXTERNAL=ON -DSPDLOG_BUILD_EXAMPLE=OFF -DSPDLOG_BUILD_TESTS=OFF
deps_finish
