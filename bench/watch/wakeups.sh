#!/bin/sh
# bench/watch/wakeups.sh BUILD [SECONDS] -- how often each viewer wakes up
# while it watches bench/watch/watch_work (2 threads at a spinning barrier,
# about 580,000 events/s on the developers' machine).  Each wake-up
# preempts a thread of a program that keeps every core busy, and its peers
# wait for it at their barrier (docs/performance/watch.md), so this count
# is what the viewers' pacing is about.  It is a count, not a timing: it
# does not depend on the machine's load the way ops/s ratios do.
#
# Per viewer: voluntary context switches of all its threads (a sleep that
# ended is one) per second, and its CPU, over SECONDS (default 3) in the
# middle of the workload's run.  recorder-top runs in tmux, as a user's
# would; tmux's own wake-ups (it reads every write of the screen) are
# shown apart.
set -eu
case "${1:-}" in -h | --help | '')
    echo "usage: bench/watch/wakeups.sh BUILD [SECONDS]"
    [ -n "${1:-}" ] && exit 0
    exit 2 ;;
esac
build=$(cd "$1" && pwd)
secs=${2:-3}
tmp=$(mktemp -d)
trap 'tmux -S "$tmp/sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
echo "command:  bench/watch/wakeups.sh $*"
# The commit the build was made from (its meson-info names the source).
src=$(sed -n 's/.*"source": *"\([^"]*\)".*/\1/p' "$build/meson-info/meson-info.json" 2>/dev/null | head -n 1)
echo "commit:   $(git -C "${src:-.}" rev-parse --short HEAD 2>/dev/null || echo '?') (the build's source)"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before"

# Voluntary switches of every thread of pid, and its CPU ticks.
switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n + 0}'
}
ticks() { awk '{print $14 + $15}' /proc/"$1"/stat; }

# Starts watch_work for secs + 3 s, paused until "go"; sets $work.
start_work() {
    rm -f "$tmp/work.out"
    (sleep 1; echo go; sleep $((secs + 6))) |
        "$build/bench/watch/watch_work" --threads 2 --seconds $((secs + 3)) >"$tmp/work.out" 2>&1 &
    until grep -q ready "$tmp/work.out" 2>/dev/null; do sleep 0.05; done
    work=$(awk '/^ready/ {print $2}' "$tmp/work.out")
}

# Samples pid (and, if given, a second pid) over secs, from 2 s into the run.
measure() {
    sleep 2
    a=$(switches "$1"); ta=$(ticks "$1")
    b=0; [ -n "${3:-}" ] && b=$(switches "$3")
    sleep "$secs"
    a2=$(switches "$1"); ta2=$(ticks "$1")
    b2=0; [ -n "${3:-}" ] && b2=$(switches "$3")
    hz=$(getconf CLK_TCK)
    awk -v n="$2" -v a="$a" -v a2="$a2" -v t="$ta" -v t2="$ta2" -v s="$secs" -v hz="$hz" \
        'BEGIN {printf "%-14s %8.1f wake-ups/s  %.3f core\n", n, (a2 - a) / s, (t2 - t) / hz / s}'
    [ -n "${3:-}" ] && awk -v b="$b" -v b2="$b2" -v s="$secs" \
        'BEGIN {printf "%-14s %8.1f wake-ups/s  (the terminal: reads what recorder-top writes)\n", "  tmux", (b2 - b) / s}'
    return 0
}

start_work
"$build/librecorder/cli/recorder" capture --wait=10 "$work" -o "$tmp/o.rec" 2>/dev/null &
cap=$!
measure "$cap" "capture"
wait "$cap" || true
wait

start_work
"$build/viewer-web/recorder-web" "$work" --port 0 >/dev/null 2>&1 &
web=$!
measure "$web" "recorder-web"
kill "$web" 2>/dev/null || true
wait

start_work
tmux -S "$tmp/sock" -f /dev/null new-session -d -s w -x 120 -y 40 \
    "exec env LANG=C.UTF-8 $build/viewer-tui/recorder-top $work"
top=$(tmux -S "$tmp/sock" display-message -p -t w '#{pane_pid}')
server=$(tmux -S "$tmp/sock" display-message -p -t w '#{pid}')
measure "$top" "recorder-top" "$server"
tmux -S "$tmp/sock" kill-server 2>/dev/null || true
wait
