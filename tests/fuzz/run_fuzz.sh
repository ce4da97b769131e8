#!/bin/sh
# run_fuzz.sh FUZZER SEEDS_EXE KIND WORKDIR [SECONDS]
# Generates the seed corpus with SEEDS_EXE, then runs the libFuzzer target
# for a bounded time.  Crash inputs land in WORKDIR (artifact_prefix).
set -eu
fuzzer=$1 seeds=$2 kind=$3 work=$4 secs=${5:-${FUZZ_SECONDS:-10}}
rm -rf "$work"
mkdir -p "$work/corpus"
"$seeds" "$work/seeds"
exec "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "$work/seeds/$kind"
