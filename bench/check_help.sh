#!/bin/sh
# bench/check_help.sh PROGRAM... -- every benchmark answers --help at once
# (exit 0, a usage text on stdout) and refuses an option it does not know
# (exit 2) instead of running its benchmark, which takes seconds to
# minutes: a program that ran would outlast the test's timeout (meson's,
# in bench/meson.build).  Run as the test bench_help, with every program
# built from bench/*/meson.build.
fail=0
for p in "$@"; do
    name=$(basename "$p")
    bad=0
    out=$("$p" --help </dev/null 2>/dev/null)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name --help: exit $rc, not 0"
        bad=1
    elif ! printf '%s\n' "$out" | grep -qi usage; then
        echo "FAIL $name --help: no usage text on stdout"
        bad=1
    fi
    err=$("$p" --no-such-option </dev/null 2>&1 >/dev/null)
    rc=$?
    if [ $rc -ne 2 ]; then
        echo "FAIL $name --no-such-option: exit $rc, not 2"
        bad=1
    elif [ -z "$err" ]; then
        echo "FAIL $name --no-such-option: nothing said on stderr"
        bad=1
    fi
    if [ $bad -eq 0 ]; then echo "ok   $name"; else fail=1; fi
done
[ $# -gt 0 ] || { echo "FAIL no programs given"; fail=1; }
exit $fail
