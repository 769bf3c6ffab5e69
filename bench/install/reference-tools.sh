#!/usr/bin/env bash
# Builds bsdtar, the reference extractor of bench/install, from Debian's libarchive source package
# as one static program (zlib linked in too), for machines without Debian's packages (the GPU
# validation machines, which have curl and openssl but no bsdtar). zip and gzip only, as zcuda
# reads; the same machinery and cache as scripts/portable-deps.sh. Prints the prefix on its last
# line; bsdtar is its bin/bsdtar. About 3 minutes on 2 cores when cold.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
name=bench-tools
recipe=("$0")
source "$repo/scripts/lib/deb-source-build.sh"

deps_begin zlib libarchive -- "compiler $(gcc -dumpfullversion) $(gcc -dumpmachine)"
log "building bsdtar into $prefix"
export CFLAGS="-O2" CPPFLAGS="-I$stage/include" LDFLAGS="-L$stage/lib"

src=$(fetch_source zlib)
run_logged zlib bash -c "cd '$src' && ./configure --static --prefix='$stage' && make -j $jobs libz.a && make install"

src=$(fetch_source libarchive)
log "libarchive: $(basename "$src")"
run_logged libarchive bash -c "cd '$src' && autoreconf -fi && ./configure --prefix='$stage' --disable-shared \
  --enable-static --enable-bsdtar=static --disable-bsdcpio --disable-bsdcat --disable-acl --disable-xattr \
  --without-bz2lib --without-lzma --without-zstd --without-lz4 --without-libb2 --without-iconv --without-xml2 \
  --without-expat --without-openssl --without-mbedtls --without-nettle \
  && make -j $jobs bsdtar && mkdir -p '$stage/bin' && cp bsdtar '$stage/bin/bsdtar'"
deps_finish
