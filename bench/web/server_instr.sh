#!/bin/sh
# bench/web/server_instr.sh BUILD [FILE.rec] -- the instructions recorder-web
# spends per event, counted by cachegrind while it reads a capture file:
# the same decoding, model, summary grid, latency history and page
# encoding as a live view, and a count that does not depend on the
# machine's load (docs/performance/watch.md, "Instructions per event").
# Without FILE.rec, 2 s of bench/watch/watch_work are captured first.
# Compare builds on the same file; use release builds (with -g for the
# per-function lines).
set -eu
case "${1:-}" in -h | --help | '')
    echo "usage: bench/web/server_instr.sh BUILD [FILE.rec]"
    [ -n "${1:-}" ] && exit 0
    exit 2 ;;
esac
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap '[ -z "$vg" ] || kill "$vg" 2>/dev/null; rm -rf "$tmp"' EXIT
vg=
file=${2:-}
echo "command:  bench/web/server_instr.sh $*"
echo "commit:   $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before"
if [ -z "$file" ]; then
    file=$tmp/watch.rec
    # watch_work prints "ready PID" and waits for "go" on its stdin.
    (sleep 1; echo go; sleep 4) | "$build/bench/watch/watch_work" --seconds 2 >"$tmp/work.out" 2>&1 &
    until grep -q ready "$tmp/work.out" 2>/dev/null; do sleep 0.1; done
    pid=$(awk '/^ready/{print $2}' "$tmp/work.out")
    "$build/librecorder/cli/recorder" capture "$pid" --wait -q -o "$file"
    wait
fi
# "recorder report: pid P (NAME), capture: N threads, E events"
events=$("$build/librecorder/cli/recorder" report "$file" |
    awk 'NR == 1 {for (i = 2; i <= NF; i++) if ($i ~ /^events/) {print $(i - 1); exit}}')
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$tmp/cg.out" \
    "$build/viewer-web/recorder-web" "$file" --port 0 >"$tmp/vg.log" 2>&1 &
vg=$!
# Once the file is read the server idles: its CPU time (in ticks of 10 ms)
# grows by a few ticks in 3 s at most, against 300 while it reads.
prev=-1000
while :; do
    sleep 3
    [ -r "/proc/$vg/stat" ] || { cat "$tmp/vg.log"; exit 1; }
    t=$(awk '{print $14 + $15}' "/proc/$vg/stat")
    [ $((t - prev)) -lt 5 ] && break
    prev=$t
done
kill -TERM "$vg"
wait "$vg" || true
vg=
total=$(cg_annotate "$tmp/cg.out" | awk '/PROGRAM TOTALS/{gsub(",", "", $1); print $1; exit}')
echo "file:     $file ($events events)"
awk -v t="$total" -v e="$events" 'BEGIN {printf "total:    %d instructions, %.0f per event\n", t, (e > 0 ? t / e : 0)}'
echo "largest (instructions, function):"
cg_annotate "$tmp/cg.out" | awk '/^ *[0-9,]+ \(/ && !/TOTALS/ && n++ < 15 {print "  " $1 "  " $NF}'
