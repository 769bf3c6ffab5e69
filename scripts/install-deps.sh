#!/usr/bin/env bash
# Installs what zcuda needs to build and test on Debian 12, non-interactively. Safe to run again:
# apt-get skips what is already installed.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ccache lld
  # the code's format (.clang-format, scripts/check-format.sh)
  clang-format
  # libraries zcuda links
  libcurl4-openssl-dev libssl-dev libarchive-dev nlohmann-json3-dev libcli11-dev
  libspdlog-dev libfmt-dev
  # tests: GoogleTest, the real HIP runtime (loaded dynamically by detect's tests), archive
  # and certificate tools the tests and benchmarks drive
  libgtest-dev libgmock-dev libamdhip64-5 libarchive-tools openssl zip unzip
  # tests: PE files for the import parser, built with the MinGW-w64 cross compilers (PE32+ and
  # PE32); benchmarks: hyperfine
  gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 hyperfine
  # the reference workload rl-train (docs/workload.md): LibTorch 1.13 (CPU) and an optimised BLAS
  # for it (without one, Debian's LibTorch falls back to the reference BLAS, ~5x slower here)
  libtorch-dev libopenblas0-openmp
  # tests: the application profiles' torch check in a real venv over Debian's CPU torch
  # (docs/apps.md; tests/unit/apps)
  python3-torch python3-venv
  # the Windows build (scripts/windows-deps.sh, scripts/test-windows.sh): MinGW-w64 with posix
  # threads, zlib for it, what building Debian's source packages takes, and Wine to run the tests
  g++-mingw-w64-x86-64-posix libz-mingw-w64-dev dpkg-dev autoconf automake libtool wine64
)

if [[ ${EUID} -ne 0 ]]; then
  exec sudo --preserve-env=DEBIAN_FRONTEND "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive

# The Windows build compiles its libraries from Debian's source packages (apt-get source), which
# needs deb-src entries. Unless the machine has its own, they are derived from its deb entries
# (scripts/deb-src-entries.sh), so whatever mirror, proxy or snapshot it uses serves them too.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
deb_src=/etc/apt/sources.list.d/zcuda-deb-src.sources
if "$here/deb-src-entries.sh" has-src /; then
  if [[ -f $deb_src ]]; then
    echo "install-deps: the machine has deb-src entries of its own; removing $deb_src"
    rm -f "$deb_src"
    need_update=1
  fi
else
  entries=$("$here/deb-src-entries.sh" derive /) || exit 1
  if [[ ! -f $deb_src || "$(cat "$deb_src")" != "$entries" ]]; then
    echo "install-deps: writing deb-src entries derived from this machine's deb entries ($deb_src)"
    printf '%s\n' "$entries" >"$deb_src"
    need_update=1
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  [[ -z ${need_update:-} ]] || apt-get update -qq
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
