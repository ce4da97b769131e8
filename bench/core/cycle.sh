#!/bin/sh
# bench/core/cycle.sh BUILD -- instructions per dynamic scope when N
# run-time names come round in the same order, kept in place or written
# into one buffer per scope (bench_cycle.c; the snprintf left out), under
# callgrind, for N = 64 .. 4096.  Use a
# release build: meson setup build-rel --buildtype=release && ninja -C
# build-rel bench/core/bench_cycle.  See docs/performance/hot-path.md,
# "Names that come round".
set -eu
build=${1:-build-rel}
# shellcheck source=SCRIPTDIR/cg_header.sh
. "$(dirname "$0")/cg_header.sh"
cg_header cycle.sh "$build" bench_cycle
for n in 64 256 1024 2048 4096; do
    (cd "$tmp" && RECORDER_NAME=bench-cycle.$$ valgrind --tool=callgrind --collect-atstart=no \
        --callgrind-out-file="$tmp/cg.$n.%p" "$exe" "$n") >"$tmp/valgrind.log" 2>&1 ||
        { tail -5 "$tmp/valgrind.log"; exit 1; }
    cat "$tmp"/cg.$n.* | awk -v n="$n" '
        /^desc: Trigger: Client Request: cycle /{k = $6}
        /^summary:/{v[k] = $2}
        END {printf "%5d names   kept in place %6.1f   a rewritten buffer %6.1f  instructions per scope\n",
                    n, v["kept"] / (4 * n), (v["buffer"] - v["baseline"]) / (4 * n)}'
done
