#!/usr/bin/env bash
# Builds zcuda for Windows with MinGW-w64 (preset "windows"), runs every test as a Windows
# program under Wine, and makes the release zip. Part of scripts/test.sh; also runs alone.
# The third-party libraries come from scripts/windows-deps.sh (cached outside the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

ZCUDA_MINGW_PREFIX=$(./scripts/windows-deps.sh | tail -n 1)
export ZCUDA_MINGW_PREFIX

build=build/windows
# A Wine prefix of the build's own, made afresh: the tests write to its registry and its C: drive.
export WINEPREFIX="$PWD/$build/wine"
export WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko installers (they would ask on a display there is none of).
export WINEDLLOVERRIDES="mscoree,mshtml="
wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
[[ -x $wine ]] || { echo "test-windows: wine64 is missing: run scripts/install-deps.sh" >&2; exit 1; }

echo "== windows: configure and build"
cmake --preset windows >/dev/null
"$wineserver" --kill >/dev/null 2>&1 || true  # one left from an earlier run
rm -rf "$WINEPREFIX" && mkdir -p "$WINEPREFIX"
# One Wine server for the whole run instead of one per test process, ended when this script is.
"$wineserver" --persistent
trap '"$wineserver" --kill >/dev/null 2>&1 || true' EXIT
"$wine" wineboot --init >/dev/null 2>&1
cmake --build --preset windows
# Wine starts its desktop process (explorer.exe /desktop) for the first program that touches the
# window system (DXGI does) and hands it that program's standard handles: started from inside a
# test, it would hold the test's pipes open and the test would wait for ever. Wine also ends it
# a second after the last program using the desktop exits, so start it here, with nothing to
# inherit, and keep it in use until the tests are done (the trap's wineserver --kill ends it).
"$wine" "$build/tests/zcuda-wine-desktop-holder.exe" </dev/null >/dev/null 2>&1 &
desktop_running() { grep -qsa 'explorer[.]exe' /proc/[0-9]*/cmdline; }
for _ in $(seq 100); do desktop_running && break; sleep 0.2; done
desktop_running || { echo "test-windows: Wine's desktop (explorer.exe) did not start" >&2; exit 1; }

echo "== windows: test (under $("$wine" --version))"
ctest --preset windows

echo "== windows: release zip"
(cd "$build" && cpack -G ZIP >/dev/null)
zip=$(ls "$build"/zcuda-*-windows-x86_64.zip)
# What a user unzips: both programs, the licences and the docs, in one folder.
top=$(basename "$zip" .zip)
listing=$(bsdtar -tf "$zip")
for entry in zcuda.exe zcuda-probe.exe LICENSE THIRD_PARTY_NOTICES.md README.md docs/windows.md docs/cli.md; do
  grep -qx "$top/$entry" <<<"$listing" || { echo "test-windows: $entry is missing from $zip" >&2; exit 1; }
done
echo "windows: $zip ($(stat -c %s "$zip") bytes, $(wc -l <<<"$listing") entries)"
