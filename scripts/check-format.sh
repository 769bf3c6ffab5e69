#!/usr/bin/env bash
# Checks that the C and C++ sources follow .clang-format; with --fix, formats them in place.
# The files: every tracked *.c, *.cpp, *.h, *.hpp outside tests/fixtures. clang-format 14 is the
# pinned version (Debian 12's, scripts/install-deps.sh); with another one the check is skipped
# with exit code 77 (what ctest counts as skipped), since other majors format some constructs
# differently.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; fi
clang_format="${CLANG_FORMAT:-clang-format}"
if ! command -v "${clang_format}" >/dev/null 2>&1; then
  echo "check-format: ${clang_format} is not installed (scripts/install-deps.sh installs it); skipped" >&2
  exit 77
fi
version=$("${clang_format}" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [[ "${version}" != "14" ]]; then
  echo "check-format: clang-format ${version} found, the format is pinned to 14; skipped" >&2
  exit 77
fi

mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp' | grep -v '^tests/fixtures/')
if (( fix )); then
  printf '%s\0' "${files[@]}" | xargs -0 -n 50 "${clang_format}" -i --style=file
  echo "check-format: formatted ${#files[@]} files"
  exit 0
fi
if ! printf '%s\0' "${files[@]}" | xargs -0 -n 50 "${clang_format}" --dry-run --Werror --style=file 2>/tmp/check-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/check-format.$$ | cut -d: -f1 | sort -u | sed 's/^/  /' >&2
  rm -f /tmp/check-format.$$
  echo "check-format: the files above do not follow .clang-format; run scripts/check-format.sh --fix" >&2
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files follow .clang-format"
