#!/usr/bin/env bash
# Builds and signs a zcuda knowledge bundle from manifests/ (docs/knowledge.md). Keys are Ed25519
# PEM files made with openssl and kept off the repository: never commit one.
#
#   publish-knowledge.sh keygen FILE
#       a new Ed25519 private key (mode 600) and its public key as hex on stdout
#   publish-knowledge.sh certify --root-key ROOT.pem --signing-key SIGNING.pem --expires TIME --out CERT.json
#       the root vouches for the signing key until TIME (YYYY-MM-DDThh:mm:ssZ); done on the
#       offline machine that holds the root key
#   publish-knowledge.sh build --signing-key SIGNING.pem --cert CERT.json --out DIR
#                             [--manifests DIR] [--lifetime-days N] [--epoch SECONDS] [--min-zcuda X.Y.Z]
#       DIR gets index.json, index.json.sig and the files: upload DIR's contents as the feed
#   publish-knowledge.sh sign --signing-key SIGNING.pem --cert CERT.json --index INDEX.json --out INDEX.json.sig
#       signs an index made elsewhere (the build signs the compiled-in bundle's this way when
#       configured with ZCUDA_KNOWLEDGE_SIGNING_KEY and ZCUDA_KNOWLEDGE_SIGNING_CERT)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "publish-knowledge: $*" >&2; exit 2; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is required"; }
need openssl
need cmake
need od

hex_of() { od -An -v -tx1 | tr -d ' \n'; }
public_hex() { openssl pkey -in "$1" -pubout -outform DER | tail -c 32 | hex_of; }
sign_hex() {  # KEY FILE
  openssl pkeyutl -sign -inkey "$1" -rawin -in "$2" | hex_of
}
valid_time() { [[ $1 =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]; }

# Writes index.json.sig for INDEX: the certificate and the signing key's signature of INDEX's bytes.
write_signature() {  # SIGNING_KEY CERT INDEX OUT
  local key signature
  key=$(public_hex "$1")
  grep -q "\"public\": \"$key\"" "$2" || die "$2 does not vouch for the key in $1"
  signature=$(sign_hex "$1" "$3")
  {
    printf '{\n  "signing_key": '
    sed 's/^/  /' "$2" | sed '1s/^  //'
    printf '  ,\n  "signature": "%s"\n}\n' "$signature"
  } >"$4"
}

command=${1:-}
shift || true
case "$command" in
  keygen)
    file=${1:?usage: publish-knowledge.sh keygen FILE}
    [[ -e $file ]] && die "$file exists; not overwriting a key"
    (umask 077 && openssl genpkey -algorithm ed25519 -out "$file")
    public_hex "$file"
    echo
    ;;
  certify)
    root_key="" signing_key="" expires="" out=""
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --root-key) root_key=$2; shift 2 ;;
        --signing-key) signing_key=$2; shift 2 ;;
        --expires) expires=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) die "unknown option $1" ;;
      esac
    done
    [[ -n $root_key && -n $signing_key && -n $expires && -n $out ]] || die "certify needs --root-key, --signing-key, --expires and --out"
    valid_time "$expires" || die "--expires must look like 2027-06-01T00:00:00Z"
    key=$(public_hex "$signing_key")
    root=$(public_hex "$root_key")
    statement=$(mktemp)
    trap 'rm -f "$statement"' EXIT
    # The exact bytes zcuda checks (knowledge::key_statement).
    printf 'zcuda knowledge signing key v1\nkey %s\nexpires %s\n' "$key" "$expires" >"$statement"
    root_signature=$(sign_hex "$root_key" "$statement")
    printf '{\n  "public": "%s",\n  "expires": "%s",\n  "root": "%s",\n  "root_signature": "%s"\n}\n' \
      "$key" "$expires" "$root" "$root_signature" >"$out"
    echo "signing key $key vouched for by root $root until $expires: $out"
    ;;
  build)
    signing_key="" cert="" out="" manifests="$repo/manifests" lifetime=30 epoch="" min_zcuda=""
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --signing-key) signing_key=$2; shift 2 ;;
        --cert) cert=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --manifests) manifests=$2; shift 2 ;;
        --lifetime-days) lifetime=$2; shift 2 ;;
        --epoch) epoch=$2; shift 2 ;;
        --min-zcuda) min_zcuda=$2; shift 2 ;;
        *) die "unknown option $1" ;;
      esac
    done
    [[ -n $signing_key && -n $cert && -n $out ]] || die "build needs --signing-key, --cert and --out"
    [[ -z $(ls -A "$out" 2>/dev/null) ]] || die "$out is not empty"
    if [[ -z $min_zcuda ]]; then
      min_zcuda=$(sed -n 's/^project(zcuda VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
      [[ -n $min_zcuda ]] || die "could not read zcuda's version from CMakeLists.txt; pass --min-zcuda"
    fi
    [[ -z $epoch ]] && epoch=$(date -u +%s)
    # The certificate must be for this signing key.
    key=$(public_hex "$signing_key")
    grep -q "\"public\": \"$key\"" "$cert" || die "$cert does not vouch for the key in $signing_key"
    mkdir -p "$out"
    files=()
    for f in "$manifests"/*.json "$manifests"/*.py; do
      [[ -f $f ]] || continue
      cp "$f" "$out/"
      files+=("$out/$(basename "$f")")
    done
    [[ ${#files[@]} -gt 0 ]] || die "no knowledge files in $manifests"
    joined=$(IFS='|'; echo "${files[*]}")
    # The same index the build makes for the compiled-in bundle.
    cmake "-DFILES=$joined" "-DOUT_INDEX=$out/index.json" "-DMIN_ZCUDA=$min_zcuda" "-DEPOCH=$epoch" \
      "-DLIFETIME_DAYS=$lifetime" -P "$repo/cmake/knowledge_index.cmake" >/dev/null
    write_signature "$signing_key" "$cert" "$out/index.json" "$out/index.json.sig"
    version=$(sed -n 's/^  "version": \([0-9]*\).*/\1/p' "$out/index.json")
    echo "knowledge bundle $version (${#files[@]} files) signed in $out"
    ;;
  sign)
    signing_key="" cert="" index="" out=""
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --signing-key) signing_key=$2; shift 2 ;;
        --cert) cert=$2; shift 2 ;;
        --index) index=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) die "unknown option $1" ;;
      esac
    done
    [[ -n $signing_key && -n $cert && -n $index && -n $out ]] || die "sign needs --signing-key, --cert, --index and --out"
    write_signature "$signing_key" "$cert" "$index" "$out"
    ;;
  *)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
