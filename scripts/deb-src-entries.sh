#!/usr/bin/env bash
# deb-src entries for apt, derived from the deb entries the machine already has, so that a mirror,
# a caching proxy or a snapshot the machine is set up with serves the source packages too.
#
#   deb-src-entries.sh derive [ROOT]   print deb822 stanzas (Types: deb-src) for every enabled deb
#                                      entry of the distribution (its suites: CODENAME,
#                                      CODENAME-*); exit 1 with a message when there is none
#   deb-src-entries.sh has-src [ROOT]  exit 0 when the machine has deb-src entries of its own
#
# ROOT (default /) is where etc/apt/sources.list, etc/apt/sources.list.d/*.list (one-line format)
# and *.sources (deb822) are read, and etc/os-release for the codename; tests pass a sample tree.
# zcuda's own file (sources.list.d/zcuda-deb-src.sources, written by install-deps.sh) is never
# read: it is what this script produces.
set -euo pipefail

readonly own_file=zcuda-deb-src.sources

mode=${1:-}
root=${2:-/}
root=${root%/}
case $mode in
  derive | has-src) ;;
  *)
    echo "usage: deb-src-entries.sh derive|has-src [ROOT]" >&2
    exit 2
    ;;
esac

# apt reads sources.list, then sources.list.d in name order.
files=()
[[ -f $root/etc/apt/sources.list ]] && files+=("$root/etc/apt/sources.list")
shopt -s nullglob
for f in "$root"/etc/apt/sources.list.d/*.list "$root"/etc/apt/sources.list.d/*.sources; do
  [[ $(basename "$f") == "$own_file" ]] || files+=("$f")
done
shopt -u nullglob
mapfile -t files < <(printf '%s\n' "${files[@]}" | LC_ALL=C sort)
[[ -n ${files[0]:-} ]] || files=()

codename=""
for release in "$root/etc/os-release" "$root/usr/lib/os-release"; do
  if [[ -f $release ]]; then
    codename=$(sed -n 's/^VERSION_CODENAME=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' "$release" | head -n 1)
    break
  fi
done

shown_files=""
for f in "${files[@]}"; do shown_files+="${shown_files:+, }${f#"$root"}"; done

if ((${#files[@]} == 0)); then
  output=""
else
  output=$(awk -v mode="$mode" -v codename="$codename" -v root="$root" '
    function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
    # The distribution'\''s suites: bookworm, bookworm-updates, bookworm-security (and the old
    # bookworm/updates spelling). Without a codename every suite counts.
    function distribution_suite(s) {
      return codename == "" || s == codename || index(s, codename "-") == 1 || index(s, codename "/") == 1
    }
    # One-line option names as deb822 field names (sources.list(5)); lists use spaces there.
    function field_name(option,   n, parts, i, out) {
      if (option == "signed-by") return "Signed-By"
      if (option == "lang") return "Languages"
      if (option == "target") return "Targets"
      if (option == "pdiffs") return "PDiffs"
      n = split(option, parts, "-")
      out = ""
      for (i = 1; i <= n; i++) out = out (i > 1 ? "-" : "") toupper(substr(parts[i], 1, 1)) substr(parts[i], 2)
      return out
    }
    function emit(origin, uris, suites, components, extra,   n, list, i, kept, key) {
      n = split(suites, list, /[ \t]+/)
      kept = ""
      for (i = 1; i <= n; i++) {
        if (list[i] == "" || !distribution_suite(list[i])) continue
        key = uris SUBSEP list[i]
        if (key in seen) continue
        seen[key] = 1
        kept = kept (kept == "" ? "" : " ") list[i]
      }
      if (kept == "" || mode != "derive") return
      printf "%s# from the deb entries in %s\nTypes: deb-src\nURIs: %s\nSuites: %s\n", (stanzas++ ? "\n" : ""), origin, uris, kept
      if (components != "") printf "Components: %s\n", components
      printf "%s", extra
    }
    function has_word(text, word,   n, list, i) {
      n = split(text, list, /[ \t]+/)
      for (i = 1; i <= n; i++) if (list[i] == word) return 1
      return 0
    }
    # deb822: one stanza at a time; fields kept whole, continuation lines included.
    function reset_stanza() { split("", value); split("", raw); order = ""; last = "" }
    function flush_stanza(   extra, n, names, i) {
      if (order == "") return
      if (tolower(value["enabled"]) == "no") { reset_stanza(); return }
      if (has_word(value["types"], "deb-src")) has_src = 1
      if (has_word(value["types"], "deb")) {
        extra = ""
        n = split(order, names, " ")
        for (i = 1; i <= n; i++) {
          if (names[i] ~ /^(types|uris|suites|components|architectures|enabled)$/) continue
          extra = extra raw[names[i]]
        }
        emit(origin, value["uris"], value["suites"], value["components"], extra)
      }
      reset_stanza()
    }
    FNR == 1 {
      flush_stanza()
      origin = substr(FILENAME, length(root) + 1)
      deb822 = FILENAME ~ /\.sources$/
    }
    deb822 && /^[ \t]*#/ { next }
    deb822 && /^[ \t]*$/ { flush_stanza(); next }
    deb822 && /^[ \t]/ {
      if (last != "") { raw[last] = raw[last] $0 "\n"; value[last] = value[last] " " trim($0) }
      next
    }
    deb822 {
      colon = index($0, ":")
      if (colon == 0) next
      last = tolower(trim(substr($0, 1, colon - 1)))
      if (!(last in raw)) order = order " " last
      value[last] = trim(substr($0, colon + 1))
      raw[last] = $0 "\n"
      next
    }
    {
      line = $0
      sub(/#.*/, "", line)
      line = trim(line)
      if (line == "") next
      options = ""
      if (match(line, /\[[^]]*\]/)) {
        options = substr(line, RSTART + 1, RLENGTH - 2)
        line = substr(line, 1, RSTART - 1) " " substr(line, RSTART + RLENGTH)
      }
      n = split(line, word, /[ \t]+/)
      if (word[1] == "deb-src") { has_src = 1; next }
      if (word[1] != "deb" || n < 3 || word[2] ~ /^cdrom:/) next
      components = ""
      for (i = 4; i <= n; i++) components = components (components == "" ? "" : " ") word[i]
      extra = ""
      m = split(options, option, /[ \t]+/)
      for (i = 1; i <= m; i++) {
        eq = index(option[i], "=")
        if (eq == 0) continue
        name = substr(option[i], 1, eq - 1)
        sub(/[+-]$/, "", name)
        if (name == "arch") continue  # architectures mean nothing for source packages
        setting = substr(option[i], eq + 1)
        gsub(/,/, " ", setting)
        extra = extra field_name(name) ": " setting "\n"
      }
      emit(origin, word[2], word[3], components, extra)
    }
    END {
      flush_stanza()
      if (mode == "has-src") exit has_src ? 0 : 1
    }
  ' "${files[@]}") || {
    [[ $mode == has-src ]] && exit 1
    echo "deb-src-entries: could not read $shown_files" >&2
    exit 1
  }
fi

if [[ $mode == has-src ]]; then
  ((${#files[@]} > 0)) || exit 1
  exit 0
fi

if [[ -z $output ]]; then
  {
    echo "deb-src-entries: no deb entries for ${codename:-this distribution} in ${shown_files:-$root/etc/apt (no sources files)}"
    echo "  The deb-src entries are derived from the machine's own deb entries (its mirror or proxy);"
    echo "  configure apt for the distribution first (sources.list(5)), or add deb-src entries yourself."
  } >&2
  exit 1
fi
printf '%s\n' "$output"
