#!/usr/bin/env bash
# Installs what zcuda needs to build and test on Debian 12, non-interactively. Safe to run again:
# apt-get skips what is already installed.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # libraries zcuda links
  libcurl4-openssl-dev libssl-dev libarchive-dev nlohmann-json3-dev libcli11-dev
  libspdlog-dev libfmt-dev
  # tests: GoogleTest, the real HIP runtime (loaded dynamically by detect's tests), archive
  # and certificate tools the tests and benchmarks drive
  libgtest-dev libgmock-dev libamdhip64-5 libarchive-tools openssl zip unzip
  # tests: PE files for the import parser, built with the MinGW-w64 cross compilers (PE32+ and
  # PE32); benchmarks: hyperfine
  gcc-mingw-w64-x86-64 gcc-mingw-w64-i686 hyperfine
)

if [[ ${EUID} -ne 0 ]]; then
  exec sudo --preserve-env=DEBIAN_FRONTEND "$0" "$@"
fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
