#!/usr/bin/env bash
# bench/all.sh -- re-measures the table of docs/performance.md in one
# sitting and prints it in the same shape, the commit and the load next to
# each figure, so that any figure there can be re-checked with one command.
#
#   bench/all.sh [-b BUILD] [-o LOGDIR] [--only AREA]... [--list]
#
# BUILD (default build-bench) is a plain build (meson setup BUILD: no
# sanitizer, the project's default -O2); it is set up if missing, and each
# benchmark builds what it needs in it.  Each benchmark is the command that
# docs/performance.md lists under "Commands", run once (rows that share one
# share its run); its whole output is kept in LOGDIR (default
# bench-logs/<UTC time>/, one file per command) and the table's "measured"
# cell quotes the lines of that output that carry the row's figure,
# verbatim: nothing is computed or rounded here.  "load" is the 1-minute
# load average before and after the command: figures taken at load are
# not quiet figures (docs/performance.md says which were).  --only AREA
# (hot path, comparison, export, capture, recorder-top, "viewers, 1 M
# names", Python, recorder-web, watching; repeatable) runs those rows alone.  A benchmark
# whose tools are missing (LTTng and valgrind for the hot path, chromium
# for recorder-web) says so in its own output, as it does when run alone.
#
# It takes long (the 100 M-event captures, the browser runs): about an
# hour on the project's 2 cores.  Exit status: 0, or 1 if a command failed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-bench logdir="" only=() list=
while [ $# -gt 0 ]; do
    case $1 in
        -b) build=$2; shift 2 ;;
        -o) logdir=$2; shift 2 ;;
        --only) only+=("$2"); shift 2 ;;
        --list) list=1; shift ;;
        *) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done

# The rows: area | target (docs/performance.md's words) | command key |
# the pattern (grep -E) of the output lines that carry the figure.
rows=(
"hot path|static scope ≤ 1.10× the floor, 1 and 2 threads|core|static scope / floor"
"hot path|dynamic name ≤ 1.3× a static scope|core|dynamic name / static scope|rewritten buffer / static scope|random-order buffer"
"hot path|2 threads per thread ≤ 1 thread, within the floor's change|core|2t/1t"
"hot path|≤ 32 bytes per scope|core|^variant |^rec "
"hot path|filtered-out name ≤ 1 ns|core|filtered (static|dynamic) name"
"hot path|instructions per scope (callgrind)|core|^(variant|floor|rec|rec_dyn) "
"hot path|a dynamic scope at 1 M distinct names: ≤ 400 instructions for a new name|names|instructions per scope"
"comparison|mutex-protected buffer / LTTng-UST with an active session|core|^(variant|floor|mutex|lttng)"
"export|≥ 10 M events/s into JSON|export|^target: JSON|JSON export, (wall|CPU)"
"export|Perfetto protobuf: ≥ 40 M events/s into a sink|perfetto|^target: Perfetto|Perfetto protobuf export, (wall|CPU)"
"export|Perfetto protobuf ≤ ¼ of the JSON's size|export|^target: Perfetto|bytes.event"
"export|convert a 100 M-event capture: every event, peak RSS < 512 MB|rss|^capture:|peak RSS|wrote "
"export|Perfetto protobuf: convert a 100 M-event capture with RSS < 512 MB|rss|^perfetto +peak RSS"
"capture|lossless, one thread at full speed (capture -- CMD)|capture-launch|^median|^consumer alone"
"capture|attaching to a running program, default 1 MiB ring|capture-attach|^median"
"capture|several consumer threads: per-thread throughput as consumers are added; 8 writers lossless with ≤ 4 (16 cores)|consumers,scale|^consumers|^[0-9]+ +[0-9]"
"recorder-top|keeps up with ≥ 20 M events/s using < ½ core (drain)|top-drain|^(rec_decode|rec_model_poll_seg) |^one core drains"
"recorder-top|keeps up with ≥ 20 M events/s using < ½ core (end to end, 4 and 1 threads)|top-4,top-1|^recorder-top against|M/s +[0-9.]+ M "
"viewers, 1 M names|recorder-top and recorder-web keep up with 1 M events/s of 1 M names at ≤ ½ core|names-viewers|^ *viewer|recorder-(top|web) "
"Python|added cost per call ≤ 0.5× cProfile's and ≤ 0.3× a no-op hook's; lines; scope()|python|ratio|cProfile|line_profiler|floor"
"recorder-web|≥ 1 M events/s delivered, nothing lost silently; page ≥ 30 fps|web|delivered|fps|lost in the rings|recorder-web CPU"
"recorder-web history|10 M slices: pan/zoom ≥ 30 fps; 100 M-event capture: first frame ≤ 3 s|web|redraws|first frame|panzoom|history"
"watching|each viewer attached costs ≤ 2% of a program using every core|watch|^attached|^(none|top|capture|web)"
)

# The commands, as docs/performance.md lists them ($B: the build).
command_of() {
    local B=$build
    case $1 in
        core) echo "bench/core/run.sh $B" ;;
        export) echo "ninja -C $B bench/export/bench_export >/dev/null && ./$B/bench/export/bench_export -r 5" ;;
        perfetto) echo "ninja -C $B bench/export/bench_export >/dev/null && ./$B/bench/export/bench_export -n 10000000 -r 1 --perfetto-only" ;;
        rss) echo "ninja -C $B librecorder/cli/recorder tests/cli/gen_capture >/dev/null && bench/export/export_rss.py --build $B --scopes 50000000 --dir \${TMPDIR:-/tmp}" ;;
        capture-launch) echo "ninja -C $B bench/export/capture_bench librecorder/cli/recorder >/dev/null && ./$B/bench/export/capture_bench $B/librecorder/cli/recorder -n 100000000 -r 5 --launch" ;;
        capture-attach) echo "ninja -C $B bench/export/capture_bench librecorder/cli/recorder >/dev/null && ./$B/bench/export/capture_bench $B/librecorder/cli/recorder -n 100000000 -r 5" ;;
        names) echo "ninja -C $B bench/core/bench_names >/dev/null && bench/core/names.sh $B" ;;
        consumers) echo "ninja -C $B bench/capture/cap_consumers_bench >/dev/null && ./$B/bench/capture/cap_consumers_bench -w 4 -n 4 -r 6" ;;
        scale) echo "ninja -C $B bench/capture/cap_consumers_bench librecorder/cli/recorder >/dev/null && bench/capture/scale.sh $B 8 20000000 4" ;;
        names-viewers) echo "ninja -C $B >/dev/null && python3 bench/tui/names_bench.py --build $B --seconds 10" ;;
        top-drain) echo "ninja -C $B bench/tui/tui_bench_drain >/dev/null && ./$B/bench/tui/tui_bench_drain" ;;
        top-4|top-1) echo "ninja -C $B viewer-tui/recorder-top bench/tui/tui_bench_writer >/dev/null && python3 bench/tui/run_bench.py --top $B/viewer-tui/recorder-top --writer $B/bench/tui/tui_bench_writer --threads ${1#top-} --rate 20e6 --seconds 10" ;;
        python) echo "ninja -C $B >/dev/null && PYTHONPATH=$B/python /usr/bin/python3 bench/python/bench.py" ;;
        web) echo "meson test -C $B --benchmark --suite web -v" ;;
        watch) echo "meson test -C $B --benchmark --suite watch -v" ;;
    esac
}

wanted() {  # wanted AREA: selected by --only (all when none given)
    ((${#only[@]})) || return 0
    local a
    for a in "${only[@]}"; do [ "$a" = "$1" ] && return 0; done
    return 1
}

if [ -n "$list" ]; then
    for r in "${rows[@]}"; do
        IFS='|' read -r area target keys _ <<<"$r"
        for k in ${keys//,/ }; do printf '%-20s %-12s %s\n' "$area" "$k" "$(command_of "$k")"; done
    done
    exit 0
fi

[ -d "$build" ] || meson setup "$build" >/dev/null || { echo "bench/all.sh: cannot set up $build" >&2; exit 1; }
logdir=${logdir:-bench-logs/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$logdir"
commit=$(git describe --always --dirty 2>/dev/null || echo unknown)
load() { cut -d' ' -f1 /proc/loadavg; }

# Run each command the selected rows need, once.
declare -A done_ loadof
bad=0
for r in "${rows[@]}"; do
    IFS='|' read -r area target keys _ <<<"$r"
    wanted "$area" || continue
    for k in ${keys//,/ }; do
        [ -n "${done_[$k]:-}" ] && continue
        done_[$k]=1
        cmd=$(command_of "$k")
        l0=$(load)
        echo "bench/all.sh: $k: $cmd" >&2
        { echo "# $cmd"; echo "# commit $commit, $(date -u +%FT%TZ), load $l0"; } >"$logdir/$k.log"
        bash -c "$cmd" >>"$logdir/$k.log" 2>&1 || { echo "bench/all.sh: $k failed (exit $?), see $logdir/$k.log" >&2; bad=1; }
        loadof[$k]="$l0–$(load)"
    done
done

# The table, in docs/performance.md's shape.
echo "Measured by bench/all.sh on $(hostname), $(nproc) cores, commit $commit, $(date -u +%F); raw output in $logdir/"
echo
echo "| area | target | measured | commit | load | log |"
echo "|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
    IFS='|' read -r area target keys pattern <<<"$r"
    wanted "$area" || continue
    cell="" loads="" logs=""
    for k in ${keys//,/ }; do
        lines=$(grep -v '^#' "$logdir/$k.log" 2>/dev/null | grep -E -- "$pattern" | head -n 12 |
                sed -e 's/|/\\|/g' -e 's/^ *//' | tr -s ' ' | paste -sd '\t' | sed 's/\t/<br>/g')
        cell+="${cell:+<br>}${lines:-(no such line: see the log)}"
        loads+="${loads:+, }${loadof[$k]}"
        logs+="${logs:+, }$k.log"
    done
    echo "| $area | $target | $cell | $commit | $loads | $logs |"
done
exit $bad
