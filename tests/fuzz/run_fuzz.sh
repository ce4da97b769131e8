#!/bin/sh
# run_fuzz.sh FUZZER SEEDS_EXE KIND WORKDIR [SECONDS]
# Generates the seed corpus with SEEDS_EXE, then runs the libFuzzer target
# for a bounded time.  Crash inputs land in WORKDIR (artifact_prefix).
# A finding exits 1: libFuzzer's own code for one (and for a timeout) is
# 77, which meson reads as a skipped test, so a crash looked like a skip.
set -eu
fuzzer=$1 seeds=$2 kind=$3 work=$4 secs=${5:-${FUZZ_SECONDS:-10}}
rm -rf "$work"
mkdir -p "$work/corpus"
"$seeds" "$work/seeds"
# The targets' own files (fuzz_tmp.h) go in the run's directory too.
TMPDIR=$(cd "$work" && pwd)
export TMPDIR
exec "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -error_exitcode=1 -timeout_exitcode=1 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$work/seeds/$kind"
