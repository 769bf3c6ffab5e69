#!/usr/bin/env bash
# scripts/publish-knowledge.sh end to end with throwaway keys: the bundle it signs is accepted by
# zcuda update (trusting the throwaway root through the ZCUDA_TEST_KNOWLEDGE_ROOT test hook), and
# the same bundle with one file changed, or signed under another root, is refused.
# Usage: publish_knowledge_test.sh SOURCE_DIR ZCUDA_BIN
set -uo pipefail

source_dir=${1:?usage: publish_knowledge_test.sh SOURCE_DIR ZCUDA_BIN}
zcuda=${2:?usage: publish_knowledge_test.sh SOURCE_DIR ZCUDA_BIN}
script="$source_dir/scripts/publish-knowledge.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

root=$("$script" keygen "$work/root.pem") || fail "keygen root"
"$script" keygen "$work/signing.pem" >/dev/null || fail "keygen signing"
[[ $(stat -c %a "$work/root.pem") == 600 ]] || fail "a key file must be private (mode 600)"
"$script" certify --root-key "$work/root.pem" --signing-key "$work/signing.pem" --expires 2099-01-01T00:00:00Z --out "$work/cert.json" >/dev/null ||
  fail "certify"
# A version surely newer than the compiled-in bundle's: its time is the build's, this is 2099.
"$script" build --signing-key "$work/signing.pem" --cert "$work/cert.json" --out "$work/bundle" --epoch 4070908800 --lifetime-days 36600 >/dev/null ||
  fail "build"
for f in index.json index.json.sig artifacts.json torch-check.py; do
  [[ -f $work/bundle/$f ]] || fail "the bundle lacks $f"
done

export ZCUDA_TEST_KNOWLEDGE_ROOT=$root NO_COLOR=1
out=$("$zcuda" --home "$work/home" update --from "$work/bundle" 2>&1)
rc=$?
[[ $rc == 0 ]] || fail "update --from the published bundle: exit $rc: $out"
[[ $("$zcuda" --home "$work/home" --version) == *"knowledge 20990101000000"* ]] || fail "--version does not show the new bundle"

cp -r "$work/bundle" "$work/changed"
echo " " >>"$work/changed/artifacts.json"
sed -i 's/"version": 20990101000000/"version": 20990102000000/' "$work/changed/index.json"
"$zcuda" --home "$work/home2" update --from "$work/changed" >/dev/null 2>&1
rc=$?
[[ $rc == 16 ]] || fail "an index changed after signing: exit $rc, expected 16"

export ZCUDA_TEST_KNOWLEDGE_ROOT=$("$script" keygen "$work/other-root.pem")
"$zcuda" --home "$work/home3" update --from "$work/bundle" >/dev/null 2>&1
rc=$?
[[ $rc == 15 ]] || fail "a bundle under an untrusted root: exit $rc, expected 15"

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "publish-knowledge: all checks passed"
