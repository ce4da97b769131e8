# shellcheck shell=sh
# bench/core/cg_header.sh -- sourced by the callgrind counts (names.sh,
# cycle.sh): `cg_header SCRIPT BUILD PROGRAM` sets $exe (the program in
# BUILD's bench/core), $tmp (a directory removed on exit) and prints the
# command, the commit and the load, which every figure in the docs carries.
cg_header() {
    # shellcheck disable=SC2034  # read by the script that sources this
    exe="$(cd "$2" && pwd)/bench/core/$3"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    echo "command:  bench/core/$1 $2"
    echo "commit:   $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before"
}
