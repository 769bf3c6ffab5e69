#!/usr/bin/env bash
# scripts/deb-src-entries.sh against sample apt configurations in a temporary root: deb-src
# entries come from the machine's own deb entries (mirrors, proxies and snapshots kept as they
# are, both file formats), and a machine without any gets a clear failure.
# Usage: deb_src_entries_test.sh SOURCE_DIR
set -uo pipefail

source_dir=${1:?usage: deb_src_entries_test.sh SOURCE_DIR}
script="$source_dir/scripts/deb-src-entries.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

expect_contains() {  # NAME TEXT NEEDLE
  [[ $2 == *"$3"* ]] || fail "$1: expected to find [$3] in:"$'\n'"$2"
}

expect_lacks() {  # NAME TEXT NEEDLE
  [[ $2 != *"$3"* ]] || fail "$1: did not expect [$3] in:"$'\n'"$2"
}

new_root() {  # NAME CODENAME -> prints the root folder
  local root="$work/$1"
  mkdir -p "$root/etc/apt/sources.list.d"
  [[ -z $2 ]] || printf 'PRETTY_NAME="Sample"\nVERSION_CODENAME=%s\n' "$2" >"$root/etc/os-release"
  echo "$root"
}

# deb822: a snapshot mirror and a caching proxy, a disabled stanza, a third-party repository,
# a multi-line Signed-By key, and zcuda's own earlier file (ignored).
root=$(new_root deb822 bookworm)
cat >"$root/etc/apt/sources.list.d/distro.sources" <<'EOF'
# the distribution, through a snapshot
Types: deb
URIs: http://snapshot.example/archive/debian/20250520T000000Z
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://proxy.example:3142/debian-security
Suites: bookworm-security
Components: main
Check-Valid-Until: no
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGRSAMPLE
 -----END PGP PUBLIC KEY BLOCK-----

Types: deb
Enabled: no
URIs: http://disabled.example/debian
Suites: bookworm-backports
Components: main
EOF
cat >"$root/etc/apt/sources.list.d/vendor.sources" <<'EOF'
Types: deb
URIs: https://vendor.example/apt
Suites: nodistro
Components: main
EOF
cat >"$root/etc/apt/sources.list.d/zcuda-deb-src.sources" <<'EOF'
Types: deb-src
URIs: http://stale.example/debian
Suites: bookworm
Components: main
EOF
out=$("$script" derive "$root" 2>"$work/err")
status=$?
[[ $status -eq 0 ]] || fail "deb822: exit status $status: $(cat "$work/err")"
expect_contains deb822 "$out" "Types: deb-src"
expect_contains deb822 "$out" "URIs: http://snapshot.example/archive/debian/20250520T000000Z"
expect_contains deb822 "$out" "Suites: bookworm bookworm-updates"
expect_contains deb822 "$out" "Components: main contrib"
expect_contains deb822 "$out" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
expect_contains deb822 "$out" "URIs: http://proxy.example:3142/debian-security"
expect_contains deb822 "$out" "Check-Valid-Until: no"
expect_contains deb822 "$out" $'Signed-By:\n -----BEGIN PGP PUBLIC KEY BLOCK-----\n .\n mQINBGRSAMPLE\n -----END PGP PUBLIC KEY BLOCK-----'
expect_lacks deb822 "$out" "disabled.example"
expect_lacks deb822 "$out" "vendor.example"
expect_lacks deb822 "$out" "stale.example"
expect_lacks deb822 "$out" "Types: deb"$'\n'
"$script" has-src "$root" && fail "deb822: zcuda's own deb-src file counted as the machine's"

# One-line format: options in brackets, a commented entry, a third-party line, a flat
# repository, and a line the deb822 file repeats (listed once).
root=$(new_root one-line bookworm)
cat >"$root/etc/apt/sources.list" <<'EOF'
# deb http://commented.example/debian bookworm main
deb [arch=amd64,i386 signed-by=/usr/share/keyrings/mirror.gpg] http://mirror.example/debian bookworm main non-free-firmware # trailing
deb http://mirror.example/debian-security bookworm-security main
deb https://vendor.example/apt stable main
deb http://flat.example/repo/ ./
EOF
cat >"$root/etc/apt/sources.list.d/extra.list" <<'EOF'
deb [ signed-by=/usr/share/keyrings/mirror.gpg ] http://mirror.example/debian bookworm-updates main
EOF
cat >"$root/etc/apt/sources.list.d/same.sources" <<'EOF'
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
EOF
out=$("$script" derive "$root" 2>"$work/err")
status=$?
[[ $status -eq 0 ]] || fail "one-line: exit status $status: $(cat "$work/err")"
expect_contains one-line "$out" $'Types: deb-src\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main non-free-firmware\nSigned-By: /usr/share/keyrings/mirror.gpg'
expect_contains one-line "$out" $'URIs: http://mirror.example/debian\nSuites: bookworm-updates'
expect_contains one-line "$out" $'URIs: http://mirror.example/debian-security\nSuites: bookworm-security\nComponents: main'
[[ $(grep -c "bookworm-security" <<<"$out") -eq 1 ]] || fail "one-line: the repeated entry is listed more than once:"$'\n'"$out"
expect_lacks one-line "$out" "commented.example"
expect_lacks one-line "$out" "vendor.example"
expect_lacks one-line "$out" "flat.example"
expect_lacks one-line "$out" "trailing"
expect_lacks one-line "$out" "amd64"
"$script" has-src "$root" && fail "one-line: no deb-src entries, yet has-src said yes"

# The machine's own deb-src entries, in either format, are found (and nothing is derived).
root=$(new_root has-src-line bookworm)
printf 'deb http://mirror.example/debian bookworm main\ndeb-src http://mirror.example/debian bookworm main\n' \
  >"$root/etc/apt/sources.list"
"$script" has-src "$root" || fail "has-src: a deb-src line was not found"
root=$(new_root has-src-822 bookworm)
printf 'Types: deb deb-src\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n' \
  >"$root/etc/apt/sources.list.d/debian.sources"
"$script" has-src "$root" || fail "has-src: Types: deb deb-src was not found"
printf 'Types: deb deb-src\nEnabled: no\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n' \
  >"$root/etc/apt/sources.list.d/debian.sources"
"$script" has-src "$root" && fail "has-src: a disabled stanza counted"

# Without a codename every deb entry is used.
root=$(new_root no-codename "")
printf 'deb http://mirror.example/debian trixie main\n' >"$root/etc/apt/sources.list"
out=$("$script" derive "$root" 2>"$work/err") || fail "no-codename: $(cat "$work/err")"
expect_contains no-codename "$out" "Suites: trixie"

# No deb entries of the distribution: a clear failure naming what was read.
root=$(new_root none bookworm)
printf 'deb https://vendor.example/apt stable main\n' >"$root/etc/apt/sources.list"
out=$("$script" derive "$root" 2>"$work/err")
status=$?
[[ $status -ne 0 ]] || fail "none: succeeded with nothing to derive from:"$'\n'"$out"
[[ -z $out ]] || fail "none: printed entries:"$'\n'"$out"
expect_contains none "$(cat "$work/err")" "no deb entries for bookworm"
expect_contains none "$(cat "$work/err")" "/etc/apt/sources.list"

# The repository names no package archive: install-deps.sh derives its entries.
if grep -nE "https?://" "$source_dir/scripts/install-deps.sh"; then
  fail "scripts/install-deps.sh names an archive address"
fi

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "deb-src entries: all checks passed"
