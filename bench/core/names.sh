#!/bin/sh
# bench/core/names.sh BUILD -- instructions per dynamic scope with a
# million distinct names (bench_names.c), under callgrind, in BUILD (a
# release build: meson setup build-rel --buildtype=release && ninja -C
# build-rel bench/core/bench_names; the counts move by a few with the
# optimization level, and the docs give -O3's and -O2's).  Prints one line
# per case; see docs/performance/hot-path.md, "A million names".
set -eu
build=${1:-build-rel}
# shellcheck source=SCRIPTDIR/cg_header.sh
. "$(dirname "$0")/cg_header.sh"
cg_header names.sh "$build" bench_names
(cd "$tmp" && RECORDER_NAME=bench-names.$$ valgrind --tool=callgrind --collect-atstart=no \
    --callgrind-out-file="$tmp/cg.%p" "$exe") >"$tmp/valgrind.log" 2>&1 ||
    { tail -5 "$tmp/valgrind.log"; exit 1; }
for f in "$tmp"/cg.*; do
    awk '/^desc: Trigger: Client Request: names /{k = $6}
         /^summary:/{s = $2}
         END {if (k != "") printf "%-9s %7.1f instructions per scope (loop included)\n", k, s / 20000}' "$f"
done
