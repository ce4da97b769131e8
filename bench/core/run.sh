#!/bin/sh
# bench/core/run.sh -- the hot-path benchmark (issue 2) in one table.
#
#   bench/core/run.sh [BUILD_DIR [bench_scope options...]]
#
# 1. builds bench_scope in BUILD_DIR (default: build-bench);
# 2. if lttng-tools is installed and this runs as root, starts an LTTng
#    session daemon unless one runs, and an active snapshot (flight
#    recorder) session with the benchmark's tracepoints enabled;
# 3. counts instructions per scope under callgrind (if valgrind is
#    installed): each variant runs N and 2N scopes, (I(2N) - I(N)) / N;
# 4. runs bench_scope with those counts and prints its table;
# 5. destroys the session, and stops the session daemon if it started it.
#
# Exit status: bench_scope's (0 all targets met, 1 a target missed,
# 2 could not run).  See docs/performance/hot-path.md.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build-bench}" 2>/dev/null && pwd) || { echo "run.sh: no build directory ${1:-$root/build-bench} (meson setup it first)" >&2; exit 2; }
[ $# -gt 0 ] && shift
exe=$build/bench/core/bench_scope

if ! ninja -C "$build" bench/core/bench_scope >/dev/null; then
    echo "run.sh: cannot build bench_scope in $build (meson setup $build first)" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/recbench.XXXXXX") || exit 2
session=""
sessiond_pid=""

# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ -n "$session" ]; then
        lttng destroy "$session" >/dev/null 2>&1
    fi
    if [ -n "$sessiond_pid" ]; then
        # Only the daemon this script started, by its pid.
        kill "$sessiond_pid" 2>/dev/null
        i=0
        while kill -0 "$sessiond_pid" 2>/dev/null && [ "$i" -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# ---- LTTng: an active session with recbench:* enabled -------------------
lttng_note=""
if ! command -v lttng >/dev/null 2>&1 || ! command -v lttng-sessiond >/dev/null 2>&1; then
    lttng_note="lttng-tools is not installed"
elif [ "$(id -u)" != 0 ]; then
    lttng_note="not root: run as root to start the LTTng session daemon"
else
    if ! lttng list >/dev/null 2>&1; then
        if lttng-sessiond --daemonize --no-kernel >"$tmp/sessiond.log" 2>&1; then
            i=0
            while ! lttng list >/dev/null 2>&1 && [ "$i" -lt 50 ]; do
                sleep 0.1
                i=$((i + 1))
            done
            pidfile=${LTTNG_RUNDIR:-/var/run/lttng}/lttng-sessiond.pid
            [ -r "$pidfile" ] && sessiond_pid=$(cat "$pidfile")
        fi
    fi
    if ! lttng list >/dev/null 2>&1; then
        lttng_note="lttng-sessiond did not start: $(tail -1 "$tmp/sessiond.log" 2>/dev/null)"
    else
        s=recbench-$$
        # Snapshot mode: overwrite, like recorder's flight-recorder mode.
        if lttng create "$s" --snapshot --output="$tmp/lttng" >"$tmp/lttng.log" 2>&1; then
            session=$s
            if lttng enable-channel --userspace --session="$s" --overwrite --subbuf-size=1M \
                    --num-subbuf=4 recbench >>"$tmp/lttng.log" 2>&1 &&
               lttng enable-event --userspace --session="$s" --channel=recbench 'recbench:*' \
                    >>"$tmp/lttng.log" 2>&1 &&
               lttng start "$s" >>"$tmp/lttng.log" 2>&1; then
                lttng_note="active session $s (snapshot mode, 4 x 1 MiB per-CPU sub-buffers, overwrite)"
            else
                lttng_note="could not set up the session: $(tail -1 "$tmp/lttng.log")"
            fi
        else
            lttng_note="could not create a session: $(tail -1 "$tmp/lttng.log")"
        fi
    fi
fi

# ---- instructions per scope under callgrind --------------------------------
instr_note="valgrind is not installed: no instruction counts"
instr_opt=""
if command -v valgrind >/dev/null 2>&1; then
    if (cd "$tmp" && valgrind --tool=callgrind --collect-atstart=no \
            --callgrind-out-file="$tmp/cg.%p" "$exe" --instr) >"$tmp/valgrind.log" 2>&1; then
        for f in "$tmp"/cg.*; do
            awk '/^desc: Trigger: Client Request: bench /{k = $6; n = $7}
                 /^summary:/{s = $2}
                 END {if (k != "") print k, n, s}' "$f"
        done | sort -k1,1 -k2,2n |
            awk '{if ($1 == k) printf "%s %.2f\n", k, ($3 - v) / n; k = $1; n = $2; v = $3}' \
            >"$tmp/instr.txt"
        instr_note="instructions per scope: callgrind, (I(2N) - I(N)) / N, N = 20000, loop included"
        instr_opt="--instr-file $tmp/instr.txt"
    else
        instr_note="callgrind failed: $(tail -1 "$tmp/valgrind.log")"
    fi
fi

# ---- the run ------------------------------------------------------------------
echo "command:  bench/core/run.sh $build $*"
echo "date:     $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu:      $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
echo "kernel:   $(uname -r)"
echo "compiler: $(cc --version | head -1), buildtype $(meson introspect "$build" --buildoptions 2>/dev/null |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' \
    2>/dev/null || echo '?')"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before"
echo "lttng:    $lttng_note"
echo "instr:    $instr_note"
echo
# shellcheck disable=SC2086
"$exe" $instr_opt "$@"
rc=$?
echo
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) after"
exit $rc
