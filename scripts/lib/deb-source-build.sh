# Sourced by scripts/windows-deps.sh and scripts/portable-deps.sh: the machinery both share for
# building static libraries from Debian's source packages into a prefix cached outside the
# repository. The caller sets `name` (the prefix's name before its key) and `recipe` (files whose
# content decides the key), then calls deps_begin; it builds into "$stage" with fetch_source and
# cmake_install, and ends with deps_finish. A failed or interrupted build leaves no prefix behind,
# only a scratch folder that the next run removes.
#
#   ZCUDA_DEPS_CACHE   where prefixes live (default: ${XDG_CACHE_HOME:-~/.cache}/zcuda-build)
cache=${ZCUDA_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zcuda-build}
jobs=$(nproc)
log() { echo "$name-deps: $*" >&2; }

# Versions of a source package, newest first, as apt's (signed) source index lists them.
versions_of() { apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V -r -u; }

# deps_begin PACKAGE... [-- EXTRA_KEY_LINE...]: the key is the recipe's files plus every version
# apt offers of each package, so a security update rebuilds. Prints the prefix and exits the
# caller when it is cached; otherwise sets up $stage and $scratch.
deps_begin() {
  local listing="" p v
  while (($#)); do
    if [[ $1 == -- ]]; then shift; listing+="$*"$'\n'; break; fi
    p=$1; shift
    v=$(versions_of "$p" | tr '\n' ' ')
    [[ -n $v ]] || { log "apt knows no source package $p: run scripts/install-deps.sh (it adds deb-src entries)"; exit 1; }
    listing+="$p $v"$'\n'
  done
  key=$( { cat "${recipe[@]}" "${BASH_SOURCE[0]}"; printf '%s' "$listing"; } | sha256sum | cut -c1-16)
  prefix="$cache/$name-$key"
  # One build of a prefix at a time: a second run (another clone's test command, or the test
  # command's background build and a test-windows.sh started by hand) waits and then finds it
  # cached, instead of removing the first run's scratch folder below.
  mkdir -p "$cache"
  exec {lock_fd}>"$cache/.lock-$name"
  if ! flock -n "$lock_fd"; then
    log "waiting for another build of $name's libraries to finish"
    flock "$lock_fd"
  fi
  if [[ -f $prefix/zcuda-deps.txt ]]; then
    log "cached: $prefix"
    echo "$prefix"
    exit 0
  fi
  rm -rf "$cache"/.scratch-"$name"-*  # what an interrupted run left
  scratch=$(mktemp -d "$cache/.scratch-$name-XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  stage="$scratch/prefix"
  mkdir -p "$stage" "$scratch/src"
  started=$(date +%s)
  : >"$stage/zcuda-deps.txt"
}

# The newest version whose source package downloads in full and unpacks (a security update's
# files can be missing from a mirror for a while); apt checks every file against the index.
# Prints the unpacked source folder.
fetch_source() {
  local p=$1 v
  for v in $(versions_of "$p"); do
    rm -rf "$scratch/src/$p" && mkdir -p "$scratch/src/$p"
    if (cd "$scratch/src/$p" && apt-get source -qq "$p=$v" >/dev/null 2>&1); then
      echo "$p $v" >>"$stage/zcuda-deps.txt"
      local dir
      dir=$(find "$scratch/src/$p" -mindepth 1 -maxdepth 1 -type d -print -quit)
      # The licence texts travel with the libraries (release archives link them in statically).
      mkdir -p "$stage/share/licenses/$p"
      local f
      for f in debian/copyright COPYING COPYING.txt LICENSE LICENSE.txt LICENSE.md LICENSE.rst LICENSE.MIT; do
        [[ -f $dir/$f ]] && cp "$dir/$f" "$stage/share/licenses/$p/$(basename "$f")"
      done
      echo "$dir"
      return 0
    fi
    log "source package $p $v did not download in full; trying an older one"
  done
  log "no source package of $p could be downloaded"
  return 1
}

# run_logged NAME COMMAND...: runs in a subshell with output to $scratch/NAME.log; its tail on failure.
run_logged() {
  local n=$1; shift
  ("$@") >>"$scratch/$n.log" 2>&1 || { tail -30 "$scratch/$n.log" >&2; exit 1; }
}

# in_background NAME COMMAND...: run_logged beside the other steps started so; wait_for_background
# waits for them all. Each library's configure script runs on one core, so side by side they keep
# both cores busy where one after another they left one idle. Sources are still fetched one at a
# time, in the foreground.
background_pids=() background_names=()
in_background() {
  local n=$1; shift
  run_logged "$n" "$@" &
  background_pids+=("$!") background_names+=("$n")
}
wait_for_background() {
  local i failed=0
  for i in "${!background_pids[@]}"; do
    wait "${background_pids[$i]}" || { log "${background_names[$i]} failed (its log's end is above)"; failed=1; }
  done
  background_pids=() background_names=()
  ((failed == 0)) || exit 1
}

cmake_install() {  # SOURCE_DIR [cmake options...]; $cmake_toolchain_args from the caller
  local src=$1; shift
  local build="$scratch/build-$(basename "$src")"
  cmake -S "$src" -B "$build" -G Ninja "${cmake_toolchain_args[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$stage" -DCMAKE_PREFIX_PATH="$stage" \
    -DBUILD_SHARED_LIBS=OFF "$@" >"$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; return 1; }
  cmake --build "$build" -j "$jobs" >>"$build.log" 2>&1 && cmake --install "$build" >>"$build.log" 2>&1 \
    || { tail -30 "$build.log" >&2; return 1; }
}

# Moves the finished prefix into place and removes prefixes of older versions or recipes.
deps_finish() {
  rm -rf "$prefix"
  mv "$stage" "$prefix"
  local old
  for old in "$cache/$name"-*; do
    [[ $old == "$prefix" ]] || rm -rf "$old"
  done
  log "done in $(( $(date +%s) - started )) s: $prefix"
  echo "$prefix"
}
