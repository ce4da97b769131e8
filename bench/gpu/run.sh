#!/bin/bash
# bench/gpu/run.sh -- the GPU checks of issue 19, in one call on a machine
# with an NVIDIA GPU (docs/gpu.md; docs/performance.md holds the figures).
#
#   bash bench/gpu/run.sh [BUILD_DIR]      (default: build-gpu, a plain
#   build with -Dcuda=enabled, carried to the machine)
#
# 1. GPT-2-shaped generate() (gpt2_generate.py, random weights, no
#    download): plain, then under `python3 -m recorder --cuda` at each
#    RECORDER_CUDA setting, then inside torch.profiler, interleaved with
#    plain runs; prints each tokens/s and its ratio to the plain run
#    beside it (ratios in one run, never across machines).
# 2. cuda_prog.cu under `recorder run --cuda`: its kernels, copies and
#    memsets counted in the JSON export, `recorder report`'s
#    Resource=GPU0 table, and the loss line.
# 3. One summary, also written to $OUT/gpu-summary.txt when $OUT is set.
set -u
B=${1:-build-gpu}
R=$B/librecorder/cli/recorder
OUTDIR=${OUT:-/tmp/gpu-bench}
mkdir -p "$OUTDIR"
SUM=$OUTDIR/gpu-summary.txt
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
say "commit $(git rev-parse --short HEAD 2>/dev/null) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "load $(cut -d' ' -f1-3 /proc/loadavg)"
[ -x "$R" ] || { say "no $R: build with meson setup $B -Dcuda=enabled --buildtype=release"; exit 2; }
PY=$(command -v python3)
export PYTHONPATH=$B/python:${PYTHONPATH:-}

tps() { "$@" 2>>"$OUTDIR/stderr.txt" | awk '/^tokens\/s/ {print $2}' | tail -1; }
G=bench/gpu/gpt2_generate.py
if "$PY" -c 'import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    for setting in "kernels,copies,sync,nvtx" "kernels" "kernels,copies,sync,api,nvtx"; do
        plain=$(tps "$PY" $G)
        traced=$(RECORDER_CUDA=$setting tps "$PY" -m recorder --cuda -o "$OUTDIR/gpt2.rec" $G)
        say "generate() RECORDER_CUDA=$setting: plain $plain tokens/s, traced $traced tokens/s, ratio $(awk -v a="$traced" -v b="$plain" 'BEGIN{if (b>0) printf "%.3f", a/b}')"
    done
    plain=$(tps "$PY" $G)
    prof=$(tps "$PY" $G --profiler)
    say "generate() torch.profiler: plain $plain tokens/s, profiled $prof tokens/s, ratio $(awk -v a="$prof" -v b="$plain" 'BEGIN{if (b>0) printf "%.3f", a/b}')"
    "$R" report "$OUTDIR/gpt2.rec" 2>&1 | grep -A12 "Resource=GPU" | tee -a "$SUM"
else
    say "torch with CUDA not available: generate() skipped"
fi

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    "$NVCC" -O2 -o "$OUTDIR/cuda_prog" bench/gpu/cuda_prog.cu -I/usr/local/cuda/include 2>>"$OUTDIR/stderr.txt"
    "$R" capture --cuda -o "$OUTDIR/cuda_prog.rec" -- "$OUTDIR/cuda_prog" 2>&1 | tee -a "$SUM"
    "$R" convert "$OUTDIR/cuda_prog.rec" -o "$OUTDIR/cuda_prog.json" 2>&1 | tee -a "$SUM"
    "$PY" - "$OUTDIR/cuda_prog.json" <<'PYEOF' | tee -a "$SUM"
import collections, json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
names = {}
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
c = collections.Counter()
for e in ev:
    lane = names.get((e.get("pid"), e.get("tid")), "")
    if lane.startswith("GPU") and e.get("ph") in ("X", "B"):
        n = e["name"]
        c["kernels" if not n.startswith(("memcpy", "memset", "sync", "flow")) else n.split()[0]] += 1
print("cuda_prog recorded:", dict(c))
PYEOF
    "$R" report "$OUTDIR/cuda_prog.rec" 2>&1 | grep -A12 "Resource=GPU" | tee -a "$SUM"
else
    say "nvcc not found: cuda_prog skipped"
fi
say "done"
