#!/usr/bin/env bash
# fuzz_lib.sh CLANG OUT.a DEPFILE FLAGS... -- SOURCES...
# Compiles librecorder's sources once with clang's fuzzing instrumentation
# into one archive that every fuzzer links (tests/fuzz/meson.build): each
# fuzzer used to compile all of librecorder itself, three times the work.
# Meson's compiler may be gcc, so these objects cannot be a Meson library.
# Writes one depfile naming every header the sources include.
set -euo pipefail
cc=$1 out=$2 dep=$3; shift 3
flags=()
while [ "$1" != -- ]; do flags+=("$1"); shift; done
shift
tmp=$(mktemp -d "$out.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
i=0
pids=()
for src in "$@"; do
    "$cc" "${flags[@]}" -c "$src" -o "$tmp/$i.o" -MD -MF "$tmp/$i.d" & pids+=($!)
    i=$((i + 1))
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
rm -f "$out"
ar rcs "$out" "$tmp"/*.o
# One rule for the archive: every object's prerequisites.
{ printf '%s:' "$out"
  for d in "$tmp"/*.d; do sed -e '1s|^[^:]*:||' -e 's|\\$||' "$d" | tr '\n' ' '; done
  echo; } > "$dep"
