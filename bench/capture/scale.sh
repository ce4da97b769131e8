#!/usr/bin/env bash
# bench/capture/scale.sh -- does `recorder capture` keep W flat-out writer
# threads lossless with N consumer threads?  For N = 1 .. MAX: start
# cap_consumers_bench --writer W SCOPES under `recorder capture --consumers N`
# (64 MiB rings, the -- CMD default) and print the summary's lost count.
# The target (issue 22) is 8 writers lossless with at most 4 consumers on a
# 16-core machine; on fewer cores the writers and the consumers share them,
# and what is lost says so.  Run from a build tree's parent:
#   bench/capture/scale.sh [BUILD] [W] [SCOPES] [MAX]
set -euo pipefail
build=${1:-build}; w=${2:-8}; scopes=${3:-20000000}; max=${4:-4}
rec="$build/librecorder/cli/recorder"; prog="$build/bench/capture/cap_consumers_bench"
out=$(mktemp -d /dev/shm/scale.XXXXXX); trap 'rm -rf "$out"' EXIT
echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$w writers x $scopes scopes, flat out"
for n in $(seq 1 "$max"); do
    line=$("$rec" capture -q --consumers "$n" -o "$out/c$n.rec" -- "$prog" --writer "$w" "$scopes" 2>&1 | grep 'recorder: captured' || true)
    rm -f "$out/c$n.rec"
    ev=$(sed -n 's/.*: \([0-9]*\) events (\([0-9]*\) entries).*/\2/p' <<<"$line")
    lost=$(sed -n 's/.*lost \([0-9]*\) entries.*/\1/p' <<<"$line")
    rate=$(sed -n 's/.* \([0-9.]*[kMG]*\) events\/s.*/\1/p' <<<"$line")
    echo "consumers $n: captured ${ev:-?} entries, lost ${lost:-?} ($rate events/s)"
done
